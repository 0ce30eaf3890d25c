#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { loadBundle } from '../dist/cli/load-bundle.js';

const { main } = loadBundle(fileURLToPath(new URL('../dist/cli-bundle/main.cjs', import.meta.url)));

process.exitCode = await main(process.argv.slice(2));
