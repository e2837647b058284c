// eslint.config.mjs - ESLint's rules for the page's modules (analyzer/web/) and the scripts
// that drive it (tests/tools/js/*.mjs, bench/analyzer/*.mjs), run by tests/component/web_lint.sh:
// eslint's recommended rules (no-undef and no-unused-vars among them) and a few more that
// catch bugs, not style.
import js from '@eslint/js';
import globals from 'globals';

// Browser globals a missing declaration would silently read (window.name, window.event, ...):
// in the page, a bare one is a bug.
const confusing = ['close', 'closed', 'event', 'external', 'find', 'frames', 'length', 'name', 'open', 'opener',
  'origin', 'parent', 'print', 'self', 'status', 'stop', 'top'];

export default [
  {
    // the patterns below are the repository's paths
    basePath: '../../..',
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  js.configs.recommended,
  {
    rules: {
      'array-callback-return': 'error',
      eqeqeq: 'error',
      'no-self-compare': 'error',
      'no-template-curly-in-string': 'error',
      'no-unmodified-loop-condition': 'error',
      'no-unreachable-loop': 'error',
      'no-use-before-define': ['error', { functions: false, classes: true, variables: true }],
      'no-unused-vars': ['error', { args: 'after-used', caughtErrors: 'all' }],
    },
  },
  {
    files: ['analyzer/web/**/*.js'],
    languageOptions: { sourceType: 'module', globals: globals.browser },
    rules: {
      'no-restricted-globals': ['error', ...confusing],
      'no-implicit-globals': 'error',
    },
  },
  {
    // node scripts whose callbacks playwright runs in the page
    files: ['tests/tools/js/*.mjs', 'bench/analyzer/*.mjs'],
    languageOptions: { sourceType: 'module', globals: { ...globals.node, ...globals.browser } },
  },
];
