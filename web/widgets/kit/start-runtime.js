// start-runtime.js — the first module the widget bundle evaluates: on a page that shows Blockscope widgets it
// starts the shared runtime (client.js creates the Web Worker, which begins downloading and compiling the wasm)
// before the widgets' own code runs, so the worker's start overlaps the definition and set-up of the widgets
// instead of waiting for the first widget's constructor.
import { connect } from '../../runtime/client.js';
import { mark } from '../../runtime/marks.js';

/** Every tag the bundle defines (index.js). */
export const WIDGET_TAGS = ['gelu-explorer', 'layernorm-explorer', 'ffn-explorer', 'block-explorer', 'gpt-explorer',
  'training-lab', 'residual-flow-explorer'];

mark('entry-evaluated');
// A page using only connect() (no widget on it) keeps the choice of options: nothing is started for it.
if (typeof document !== 'undefined' && document.querySelector(WIDGET_TAGS.join(','))) {
  connect().catch(() => {}); // failures surface where a widget awaits the runtime
}
