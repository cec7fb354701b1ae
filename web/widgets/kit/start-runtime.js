// start-runtime.js — the first module the widget bundle evaluates: on a page that shows Blockscope widgets it
// starts the shared runtime (client.js creates the Web Worker, which begins downloading and compiling the wasm)
// before the widgets' own code runs, so the worker's start overlaps the definition and set-up of the widgets
// instead of waiting for the first widget's constructor.
import { connect } from '../../runtime/client.js';
import { mark } from '../../runtime/marks.js';

/**
 * Every tag the bundle defines, in the lesson's order: the one list (define() refuses a tag not in it; the embed
 * page, the guide, the generated types and the tests read it from here or from the bundle's export).
 */
export const WIDGET_TAGS = Object.freeze(['layernorm-explorer', 'gelu-explorer', 'ffn-explorer', 'block-explorer',
  'residual-flow-explorer', 'training-lab', 'gpt-explorer']);

mark('entry-evaluated');
// A page using only connect() (no widget on it) keeps the choice of options: nothing is started for it.
if (typeof document !== 'undefined' && document.querySelector(WIDGET_TAGS.join(','))) {
  connect().catch(() => {}); // failures surface where a widget awaits the runtime
}
