// The widget bundle's entry: importing it defines every Blockscope custom element. Lesson authors load the
// built file (dist/blockscope-widgets.js) with one <script type="module"> and then use the tags.
// start-runtime.js comes first: it starts the runtime before the widgets' modules are evaluated.
import './kit/start-runtime.js';
export { WIDGET_TAGS } from './kit/start-runtime.js';
import { mark } from '../runtime/marks.js';

export { GeluExplorer } from './gelu-explorer/gelu-explorer.js';
export { LayerNormExplorer } from './layernorm-explorer/layernorm-explorer.js';
export { FeedForwardExplorer } from './ffn-explorer/ffn-explorer.js';
export { BlockExplorer } from './block-explorer/block-explorer.js';
export { GPTExplorer } from './gpt-explorer/gpt-explorer.js';
export { TrainingLab } from './training-lab/training-lab.js';
export { ResidualFlowExplorer } from './residual-flow-explorer/residual-flow-explorer.js';
// Not a widget: <blockscope-tour> steps the widgets above through states (tour/tour.js).
export { BlockscopeTour, TOUR_STEP_EVENT } from './tour/tour.js';
export { connect } from '../runtime/client.js';
export { MISTAKE_TEXT } from './kit/mistake-text.js';

mark('widgets-defined');
