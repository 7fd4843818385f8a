#!/usr/bin/env node
// Runs a TypeScript entry point with tsx's loader: used when the sources run unbuilt (the project's tests start the
// reference server's child this way); the command itself runs the build in dist/.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

register();
const [entry, ...rest] = process.argv.slice(2);
process.argv = [process.argv[0], entry, ...rest];
await import(pathToFileURL(resolve(entry)).href);
