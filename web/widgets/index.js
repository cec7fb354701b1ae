// The widget bundle's entry: importing it defines every Blockscope custom element. Lesson authors load the
// built file (dist/blockscope-widgets.js) with one <script type="module"> and then use the tags.
export { GeluExplorer } from './gelu-explorer.js';
export { LayerNormExplorer } from './layernorm-explorer.js';
export { FeedForwardExplorer } from './ffn-explorer.js';
export { BlockExplorer } from './block-explorer.js';
export { GPTExplorer } from './gpt-explorer.js';
export { TrainingLab } from './training-lab.js';
export { ResidualFlowExplorer } from './residual-flow-explorer.js';
export { connect } from '../client.js';
