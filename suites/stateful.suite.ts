import { defineConformanceSuite } from './define.js';

defineConformanceSuite('stateful');
