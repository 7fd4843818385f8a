import { register } from 'tsx/esm/api';
register();
const {startEmbedded, embeddedEnv} = await import('./cli/embedded.ts');
const s = await startEmbedded();
const { spawnSync } = await import('node:child_process');
const r = spawnSync('npx', ['vitest','run','--config','suites/vitest.config.ts','suites/listPets.suite.ts'], {env: {...process.env, ...embeddedEnv(s), PETSTORE_SEED:'1', PETSTORE_RUNS:'50'}, encoding:'utf8'});
console.log(r.stdout.split('\n').slice(-6).join('\n'));
await s.close();
