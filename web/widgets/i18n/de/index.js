// The de message table: one file per widget (and kit.js for the shared panels, tour.js for <blockscope-tour>),
// merged into one object. Keys are namespaced by file (see ../README.md).
import kit from './kit.js';
import geluExplorer from './gelu-explorer.js';
import layernormExplorer from './layernorm-explorer.js';
import ffnExplorer from './ffn-explorer.js';
import blockExplorer from './block-explorer.js';
import gptExplorer from './gpt-explorer.js';
import trainingLab from './training-lab.js';
import residualFlowExplorer from './residual-flow-explorer.js';
import tour from './tour.js';

export const FILES = { 'kit': kit, 'gelu-explorer': geluExplorer, 'layernorm-explorer': layernormExplorer, 'ffn-explorer': ffnExplorer, 'block-explorer': blockExplorer, 'gpt-explorer': gptExplorer, 'training-lab': trainingLab, 'residual-flow-explorer': residualFlowExplorer, 'tour': tour };
export default Object.freeze(Object.assign({}, ...Object.values(FILES)));
