// The widget bundle's entry: importing it defines every Blockscope custom element. Lesson authors load the
// built file (dist/blockscope-widgets.js) with one <script type="module"> and then use the tags.
// start-runtime.js comes first: it starts the runtime before the widgets' modules are evaluated.
import './start-runtime.js';
import { mark } from '../marks.js';

export { GeluExplorer } from './gelu-explorer.js';
export { LayerNormExplorer } from './layernorm-explorer.js';
export { FeedForwardExplorer } from './ffn-explorer.js';
export { BlockExplorer } from './block-explorer.js';
export { GPTExplorer } from './gpt-explorer.js';
export { TrainingLab } from './training-lab.js';
export { ResidualFlowExplorer } from './residual-flow-explorer.js';
export { connect } from '../client.js';

mark('widgets-defined');
