// Types of `blockscope/widgets` (web/dist/blockscope-widgets.js): importing it defines the custom elements.
// Attributes are strings in HTML; the interfaces below list each element's attributes with their defaults.
// Every widget also takes `theme`, `sync-url` (write changed attributes into the URL hash), `allow-remote-models`
// and `id` (deep links: #<id or tag>.<attribute>=<value>). The embedding guide (web/docs/embedding.html) documents
// each attribute's range. Events bubble and are composed; names start with blockscope-.
export { connect } from './client.js';
import type { ForwardInspection, GPTConfig, NormInspection, StepResult } from './runtime.js';

type Bool = '' | 'true' | 'false';
type Num = `${number}`;
interface CommonAttributes { theme?: 'auto' | 'light' | 'dark'; 'sync-url'?: Bool; 'allow-remote-models'?: Bool; id?: string }

export interface GeluExplorerAttributes extends CommonAttributes {
  min?: Num; max?: Num; x?: Num; step?: Num; derivative?: Bool; difference?: Bool;
}
export interface LayerNormExplorerAttributes extends CommonAttributes {
  /** tokens split by ";", features by ",", e.g. "1, 3, 5, 7; 2, 4, 6, 8" */
  values?: string; token?: Num; gamma?: string; beta?: string; eps?: Num; axis?: 'features' | 'sequence';
}
export interface FeedForwardExplorerAttributes extends CommonAttributes {
  d?: Num; expansion?: Num; batch?: Num; tokens?: Num; 'qkv-bias'?: Bool; 'attn-out-bias'?: Bool;
  'example-activation'?: 'gelu' | 'relu'; prompt?: string; layer?: Num; demo?: string;
}
export interface BlockExplorerAttributes extends CommonAttributes {
  preset?: '' | 'encoder-block-lesson82'; norm?: 'pre' | 'post'; block?: Num; step?: Num; metric?: 'norm' | 'mean' | 'var'; 'per-token'?: Bool;
  layers?: Num; 'emb-dim'?: Num; heads?: Num; prompt?: string; seed?: Num; tokenizer?: 'byte' | 'gpt2';
}
export interface GPTExplorerAttributes extends CommonAttributes {
  prompt?: string; weights?: 'trained' | 'untrained' | 'random'; seed?: Num; loading?: 'lazy' | 'eager'; model?: string;
  layers?: Num; 'emb-dim'?: Num; heads?: Num; context?: Num; tokenizer?: 'byte' | 'gpt2'; norm?: 'pre' | 'post';
  overflow?: 'crop' | 'error'; candidates?: Num; layer?: Num; head?: Num; ln?: 'norm1' | 'norm2' | 'final'; 'ln-side'?: 'in' | 'out';
  stat?: 'var' | 'mean'; temperature?: Num; 'top-k'?: Num; 'top-p'?: Num; 'max-new-tokens'?: Num; 'gen-seed'?: Num;
}
export interface TrainingLabAttributes extends CommonAttributes {
  comparison?: 'norm' | 'ffn' | 'activation' | 'residual'; lr?: Num; steps?: Num; layers?: Num; 'emb-dim'?: '32' | '48' | '64'; warmup?: Num;
  'eval-every'?: Num; 'sample-every'?: Num; seed?: Num; loading?: 'lazy' | 'eager';
}
export interface ResidualFlowExplorerAttributes extends CommonAttributes {
  depth?: Num; std?: Num; activation?: 'tanh' | 'relu' | string; layernorm?: Bool; 'same-std'?: Bool;
  seed?: 'lesson' | Num;
}

/** Base of every widget (not exported at run time): configured by attributes, data out through events. */
declare class BlockscopeElement extends HTMLElement {
  /** attribute name -> its default (and, for some, the allowed values) */
  static attrs: Record<string, unknown>;
}
export type { BlockscopeElement };
export class GeluExplorer extends BlockscopeElement {}
export class LayerNormExplorer extends BlockscopeElement {}
export class FeedForwardExplorer extends BlockscopeElement {}
export class BlockExplorer extends BlockscopeElement {}
export class GPTExplorer extends BlockscopeElement {}
export class TrainingLab extends BlockscopeElement {}
export class ResidualFlowExplorer extends BlockscopeElement {}

/** The detail of each Blockscope event (`event.detail`), by event name. */
export interface BlockscopeEventDetailMap {
  'blockscope-ready': Record<string, unknown>;
  /** <layernorm-explorer>: {axis, eps, gamma, beta, T, d, input, mean, variance, rstd, normalized, output, ...};
   *  <ffn-explorer>: {section: 'hidden' | 'positionwise' | 'example' | 'costs', ...} */
  'blockscope-change': { section?: string; [key: string]: unknown };
  /** <gelu-explorer>: the values at x */
  'blockscope-readout': { x: number; values: Record<string, number> };
  /** <gpt-explorer> and <block-explorer>: one forward pass of the core */
  'blockscope-forward': {
    ids: number[]; tokens?: string[]; config: GPTConfig | Record<string, unknown>;
    candidates?: { id: number; logit: number; probability: number }[] | null;
    normStats?: { norm1: NormInspection; norm2: NormInspection }[]; finalNorm?: NormInspection;
    inspection?: ForwardInspection | unknown;
    [key: string]: unknown;
  };
  /** <block-explorer>: the selected step of the block's forward order */
  'blockscope-step': { placement: 'pre' | 'post'; block: number; index: number; op: string; code: string;
    mean: number[]; var: number[]; norm: number[] };
  /** <gpt-explorer>: the model shown changed */
  'blockscope-model': { source: string; label: string; config: GPTConfig; numParameters: number };
  /** <gpt-explorer>: one generated token */
  'blockscope-token': { token: number; index: number };
  /** <gpt-explorer>: generation finished */
  'blockscope-generated': { tokens: number[]; text: string; stopReason: string };
  /** <residual-flow-explorer> */
  'blockscope-gradient-norms': { withResidual: ArrayLike<number>; withoutResidual: ArrayLike<number>; depth: number;
    activation: string; layerNorm: boolean; std: number; sameStd: boolean; weights: 'lesson' | 'seeded'; seed: unknown };
  /** <training-lab>: one training step of one run */
  'blockscope-train-step': Partial<StepResult> & { [key: string]: unknown };
}
export type BlockscopeEvent<K extends keyof BlockscopeEventDetailMap> = CustomEvent<BlockscopeEventDetailMap[K]>;

declare global {
  interface HTMLElementTagNameMap {
    'gelu-explorer': GeluExplorer;
    'layernorm-explorer': LayerNormExplorer;
    'ffn-explorer': FeedForwardExplorer;
    'block-explorer': BlockExplorer;
    'gpt-explorer': GPTExplorer;
    'training-lab': TrainingLab;
    'residual-flow-explorer': ResidualFlowExplorer;
  }
  interface HTMLElementEventMap {
    'blockscope-ready': BlockscopeEvent<'blockscope-ready'>;
    'blockscope-change': BlockscopeEvent<'blockscope-change'>;
    'blockscope-readout': BlockscopeEvent<'blockscope-readout'>;
    'blockscope-forward': BlockscopeEvent<'blockscope-forward'>;
    'blockscope-step': BlockscopeEvent<'blockscope-step'>;
    'blockscope-model': BlockscopeEvent<'blockscope-model'>;
    'blockscope-token': BlockscopeEvent<'blockscope-token'>;
    'blockscope-generated': BlockscopeEvent<'blockscope-generated'>;
    'blockscope-gradient-norms': BlockscopeEvent<'blockscope-gradient-norms'>;
    'blockscope-train-step': BlockscopeEvent<'blockscope-train-step'>;
  }
}
/** Attributes by tag, for JSX/templating type checks. */
export interface BlockscopeElementAttributesMap {
  'gelu-explorer': GeluExplorerAttributes;
  'layernorm-explorer': LayerNormExplorerAttributes;
  'ffn-explorer': FeedForwardExplorerAttributes;
  'block-explorer': BlockExplorerAttributes;
  'gpt-explorer': GPTExplorerAttributes;
  'training-lab': TrainingLabAttributes;
  'residual-flow-explorer': ResidualFlowExplorerAttributes;
}
