#!/usr/bin/env node
// `npm run docs`: writes the reference page (docs/reference.md) from the command's own tables, through the build
// (cli/reference.ts renders it; test/docs/reference.test.ts fails when the committed page differs).
import { writeFileSync } from 'node:fs';

const { REFERENCE_PAGE, referenceMarkdown } = await import('../dist/cli/reference.js');
writeFileSync(new URL(`../${REFERENCE_PAGE}`, import.meta.url), referenceMarkdown());
console.log(`wrote ${REFERENCE_PAGE}`);
