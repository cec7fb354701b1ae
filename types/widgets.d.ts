// Types of `blockscope/widgets` (web/dist/blockscope-widgets.js): importing it defines each custom element when the
// page first uses its tag (its code is a chunk next to the bundle). The elements and their attributes (with defaults
// and ranges) are generated from the widgets' own `static attrs` into widget-elements.d.ts
// (scripts/gen-widget-types.mjs); this file adds the events. The classes are types here: at run time a class comes
// from load(tag), or from the element's own module (`blockscope/widgets/<tag>`, types/widgets/<tag>.d.ts). Deep links
// set attributes as #<id or tag>.<attribute>=<value>. Events bubble and are composed; names start with blockscope-.
export { connect } from './client.js';
import type { ForwardInspection, GPTConfig, NormInspection, StepId, StepResult } from './runtime.js';

export type * from './widget-elements.js';
import type { BlockscopeElementClassMap, ElementTag, WidgetTag } from './widget-elements.js';
/** Every widget's tag, in the lesson's order. */
export const WIDGET_TAGS: readonly WidgetTag[];
/** Every tag the bundle defines: the widgets and <blockscope-tour>. */
export const ELEMENT_TAGS: readonly ElementTag[];
/**
 * Loads the code of element `tag` (once) and resolves with its class, defined — for a page that needs the class
 * before it creates the element (e.g. a framework setting `state` on a new element). Loading a widget starts the
 * runtime. Rejects for a tag that is not Blockscope's or when its code cannot be loaded.
 */
export function load<T extends ElementTag>(tag: T): Promise<BlockscopeElementClassMap[T]>;
/** The name of <blockscope-tour>'s event: 'blockscope-tour-step'. */
export const TOUR_STEP_EVENT: 'blockscope-tour-step';
/** What each of the core's mistake ids means, in English: `what` completes "your numbers match …", `fix` says what to change. */
export const MISTAKE_TEXT: Readonly<Record<string, Readonly<{ what: string; fix: string }>>>;

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
    /** <gpt-explorer>: the heads ablated ("block.head") and how (zeroed or mean-replaced), the logit lens at the last
     * position per layer (its top id and the predicted token's probability), and each prompt position's attribution. */
    ablated?: string[]; ablateMode?: 'zero' | 'mean'; lens?: { layer: number; top: number; probability: number }[]; attribution?: number[] | null;
    [key: string]: unknown;
  };
  /** <block-explorer>: the selected step of the block's forward order */
  'blockscope-step': { placement: 'pre' | 'post'; block: number; index: number; step: StepId; op: string; code: string;
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
  /** <blockscope-tour>: a step was shown (step from 1), or the tour closed (step 0); state is the step's deep-link
   *  state as written (what follows the #), '' when closed */
  'blockscope-tour-step': { step: number; total: number; state: string };
}
export type BlockscopeEvent<K extends keyof BlockscopeEventDetailMap> = CustomEvent<BlockscopeEventDetailMap[K]>;

declare global {
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
    'blockscope-tour-step': BlockscopeEvent<'blockscope-tour-step'>;
  }
}
