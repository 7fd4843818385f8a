import { defineConformanceSuite } from './define.js';

defineConformanceSuite('robustness');
