/**
 * The seccomp filter bubblewrap loads into every sandboxed command (`bwrap --seccomp FD`): a small
 * classic-BPF program, generated here from the tables below, that refuses the system calls a
 * confined command has no use for and that would let it change its mounts, leave its namespaces,
 * inspect other processes or reach the kernel's less guarded interfaces. No library on npm builds
 * one without a native add-on, and the program is short enough to read in full:
 *
 * 1. load the architecture; a call of any architecture other than the machine's own (x86_64's
 *    32-bit and x32 calls included) fails with EPERM;
 * 2. load the call number; each number of `DENIED_CALLS` fails with EPERM;
 * 3. `clone3` fails with ENOSYS (its flags are behind a pointer the filter cannot read; C libraries
 *    then fall back to `clone`), and `clone` with `CLONE_NEWUSER` in its flags fails with EPERM;
 * 4. everything else is allowed.
 *
 * The filter is inherited by every process the command starts and cannot be removed.
 */

/** The calls refused with EPERM. */
export const DENIED_CALLS = [
  // changing the mount table, or the root
  'mount', 'umount2', 'pivot_root', 'chroot', 'open_tree', 'move_mount', 'fsopen', 'fsconfig', 'fsmount', 'fspick', 'mount_setattr',
  // leaving or making namespaces
  'setns', 'unshare',
  // reading or driving other processes
  'ptrace',
  // kernel keyrings
  'keyctl', 'add_key', 'request_key',
  // kernel programs, tracing, modules, kexec
  'bpf', 'perf_event_open', 'init_module', 'finit_module', 'delete_module', 'kexec_load', 'kexec_file_load',
  // files by handle (bypasses the mounts), page-fault handling (used to widen kernel races)
  'open_by_handle_at', 'userfaultfd',
] as const;

type CallName = (typeof DENIED_CALLS)[number] | 'clone' | 'clone3';

interface Architecture {
  /** `AUDIT_ARCH_*`, as `seccomp_data.arch` carries it. */
  readonly audit: number;
  /** Call numbers at or above this belong to another ABI on the same architecture (x32 on x86_64). */
  readonly foreignFrom?: number;
  readonly calls: Readonly<Record<CallName, number>>;
}

/** Call numbers from the kernel's tables (arch/x86/entry/syscalls/syscall_64.tbl, include/uapi/asm-generic/unistd.h). */
const ARCHITECTURES: Readonly<Partial<Record<NodeJS.Architecture, Architecture>>> = {
  x64: {
    audit: 0xc000003e,
    foreignFrom: 0x40000000,
    calls: {
      mount: 165, umount2: 166, pivot_root: 155, chroot: 161, open_tree: 428, move_mount: 429, fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433, mount_setattr: 442,
      setns: 308, unshare: 272, ptrace: 101, keyctl: 250, add_key: 248, request_key: 249,
      bpf: 321, perf_event_open: 298, init_module: 175, finit_module: 313, delete_module: 176, kexec_load: 246, kexec_file_load: 320,
      open_by_handle_at: 304, userfaultfd: 323, clone: 56, clone3: 435,
    },
  },
  arm64: {
    audit: 0xc00000b7,
    calls: {
      mount: 40, umount2: 39, pivot_root: 41, chroot: 51, open_tree: 428, move_mount: 429, fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433, mount_setattr: 442,
      setns: 268, unshare: 97, ptrace: 117, keyctl: 219, add_key: 217, request_key: 218,
      bpf: 280, perf_event_open: 241, init_module: 105, finit_module: 273, delete_module: 106, kexec_load: 104, kexec_file_load: 294,
      open_by_handle_at: 265, userfaultfd: 282, clone: 220, clone3: 435,
    },
  },
};

const CLONE_NEWUSER = 0x10000000;
const EPERM = 1;
const ENOSYS = 38;

// Classic BPF opcodes (linux/bpf_common.h) and seccomp return values (linux/seccomp.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
/** Offsets in `struct seccomp_data`: nr, arch, then the low 32 bits of args[0] (little-endian). */
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;

interface Instruction {
  readonly code: number;
  readonly k: number;
  /** Labels jumped to when the test holds / fails (conditional jumps only); absent: the next one. */
  readonly yes?: Label;
  readonly no?: Label;
}

type Label = 'allow' | 'eperm' | 'enosys' | 'clone';

/** The filter for this machine's architecture, as bytes for `bwrap --seccomp`; undefined when the architecture is not in the tables. */
export function seccompProgram(arch: NodeJS.Architecture = process.arch): Buffer | undefined {
  const target = ARCHITECTURES[arch];
  if (target === undefined || !littleEndian()) return undefined;
  const program: Instruction[] = [
    { code: LD_W_ABS, k: ARCH },
    { code: JEQ_K, k: target.audit, no: 'eperm' },
    { code: LD_W_ABS, k: NR },
  ];
  if (target.foreignFrom !== undefined) program.push({ code: JGE_K, k: target.foreignFrom, yes: 'eperm' });
  for (const name of DENIED_CALLS) program.push({ code: JEQ_K, k: target.calls[name], yes: 'eperm' });
  program.push({ code: JEQ_K, k: target.calls.clone3, yes: 'enosys' }, { code: JEQ_K, k: target.calls.clone, yes: 'clone' }, { code: RET_K, k: RET_ALLOW });
  const labels: Record<Label, Instruction[]> = {
    clone: [{ code: LD_W_ABS, k: ARG0_LOW }, { code: JSET_K, k: CLONE_NEWUSER, yes: 'eperm', no: 'allow' }],
    allow: [{ code: RET_K, k: RET_ALLOW }],
    eperm: [{ code: RET_K, k: RET_ERRNO | EPERM }],
    enosys: [{ code: RET_K, k: RET_ERRNO | ENOSYS }],
  };
  return assemble(program, labels);
}

/** Lays out the main program then each labelled block, and encodes `struct sock_filter` (code u16, jt u8, jf u8, k u32). */
function assemble(main: readonly Instruction[], blocks: Readonly<Record<Label, readonly Instruction[]>>): Buffer {
  const layout = [...main];
  const at = {} as Record<Label, number>;
  for (const [label, block] of Object.entries(blocks) as [Label, readonly Instruction[]][]) {
    at[label] = layout.length;
    layout.push(...block);
  }
  const bytes = Buffer.alloc(layout.length * 8);
  layout.forEach((instruction, index) => {
    const jump = (label: Label | undefined): number => {
      if (label === undefined) return 0;
      const offset = at[label] - index - 1;
      if (offset < 0 || offset > 255) throw new Error(`seccomp filter: jump to ${label} out of range`);
      return offset;
    };
    bytes.writeUInt16LE(instruction.code, index * 8);
    bytes.writeUInt8(jump(instruction.yes), index * 8 + 2);
    bytes.writeUInt8(jump(instruction.no), index * 8 + 3);
    bytes.writeUInt32LE(instruction.k >>> 0, index * 8 + 4);
  });
  return bytes;
}

function littleEndian(): boolean {
  return new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
}
