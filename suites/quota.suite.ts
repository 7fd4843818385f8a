import { defineConformanceSuite } from './define.js';

defineConformanceSuite('quota');
