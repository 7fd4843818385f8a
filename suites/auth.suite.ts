import { defineConformanceSuite } from './define.js';

defineConformanceSuite('auth');
