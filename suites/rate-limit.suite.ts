import { defineConformanceSuite } from './define.js';

defineConformanceSuite('rate-limit');
