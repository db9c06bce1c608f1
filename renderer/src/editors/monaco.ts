/**
 * Monaco, bundled with the app: the editor API and only the contributions the editors use (no
 * language bundle, no CDN), with its workers as Vite-built files served from the app itself, so
 * the page's Content-Security-Policy ('self' scripts and workers, no eval) holds.
 */
import * as monaco from 'monaco-editor/editor/editor.api';
import 'monaco-editor/features/codicon/register';
import 'monaco-editor/features/hover/register';
import 'monaco-editor/features/suggest/register';
import 'monaco-editor/editor/contrib/suggest/browser/suggestController';
import 'monaco-editor/features/find/register';
import 'monaco-editor/features/gotoError/register';
import 'monaco-editor/features/bracketMatching/register';
import 'monaco-editor/features/clipboard/register';
import 'monaco-editor/features/contextmenu/register';
import 'monaco-editor/features/folding/register';
import 'monaco-editor/features/linesOperations/register';
import 'monaco-editor/features/multicursor/register';
import 'monaco-editor/features/wordOperations/register';
import { jsonDefaults } from 'monaco-editor/languages/features/json/register';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';
import JsonWorker from 'monaco-editor/language/json/json.worker?worker';

self.MonacoEnvironment = {
  getWorker(_workerId: string, label: string): Worker {
    return label === 'json' ? new JsonWorker() : new EditorWorker();
  },
};

/** The light theme, with the LTL tokens told apart: temporal operators, connectives, propositions. */
monaco.editor.defineTheme('witness', {
  base: 'vs',
  inherit: true,
  colors: {},
  rules: [
    { token: 'keyword.ltl', foreground: '0550ae', fontStyle: 'bold' },
    { token: 'keyword.invalid.ltl', foreground: 'cf222e', fontStyle: 'bold' },
    { token: 'keyword.constant.ltl', foreground: '8250df' },
    { token: 'operator.ltl', foreground: '953800' },
    { token: 'variable.ltl', foreground: '116329' },
    { token: 'string.ltl', foreground: '116329' },
    { token: 'string.invalid.ltl', foreground: 'cf222e' },
    { token: 'invalid.ltl', foreground: 'cf222e' },
  ],
});

export { monaco, jsonDefaults };
