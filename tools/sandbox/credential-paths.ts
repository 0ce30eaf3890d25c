/**
 * Where credentials live under a home folder: SSH and GPG keys, cloud CLIs, package registry
 * tokens, container and cluster configs, git and GitHub tokens. The sandbox hides each one that
 * exists (an empty folder or an empty file in its place), so a command can neither read nor change it.
 */
export const CREDENTIAL_PATHS: readonly string[] = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.config/gh',
  '.config/hub',
  '.config/git/credentials',
  '.config/dagent',
  '.config/op',
  '.config/doctl',
  '.netrc',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pypirc',
  '.gem/credentials',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.docker/config.json',
  '.kube',
  '.git-credentials',
  '.terraform.d/credentials.tfrc.json',
  '.vault-token',
  '.password-store',
  '.local/share/keyrings',
  '.pgpass',
  '.my.cnf',
  '.m2/settings.xml',
  '.gradle/gradle.properties',
];
