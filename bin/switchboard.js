#!/usr/bin/env node
// The `switchboard` command: a thin launcher for the compiled CLI.
import '../dist/src/cli.js';
