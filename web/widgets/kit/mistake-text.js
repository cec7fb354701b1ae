// mistake-text.js — what each of the core's mistake ids (core/include/blockscope/mistakes.hpp) means, in the words
// the widgets' "check your implementation" verdicts and prediction hints use: `what` completes "your numbers match
// …", `fix` says what to change. The ids are stable (pages and LMSs record them); the guide lists them. The texts
// are messages kit.mistake.<id>.what / .fix (i18n/<locale>/kit.js): MISTAKE_TEXT is the English, mistakeText(id, m)
// says them in the language of Messages `m`.
import en from '../i18n/en/kit.js';
import { messages } from './i18n.js';

/** The mistake ids this file knows, in the core's order ('correct' first). */
export const MISTAKE_IDS = Object.freeze(['correct', 'wrong-axis', 'unbiased-variance', 'eps-outside-sqrt', 'no-eps',
  'no-affine', 'tanh-approximation', 'exact-erf', 'relu-instead-of-gelu', 'no-activation', 'across-sequence', 'no-scale',
  'no-causal-mask', 'softmax-wrong-axis', 'no-attention-residual', 'no-ffn-residual', 'post-norm', 'pre-norm']);

const key = (id, field) => `kit.mistake.${id}.${field}`;

/** Every id's English {what, fix} (the guide's table reads it). */
export const MISTAKE_TEXT = Object.freeze(Object.fromEntries(MISTAKE_IDS.map((id) =>
  [id, Object.freeze({ what: en[key(id, 'what')], fix: en[key(id, 'fix')] })])));

/**
 * The text for `id` in the language of Messages `m` (default English), or the id itself for one this file does not
 * know (a newer core).
 */
export function mistakeText(id, m) {
  if (typeof m?.t !== 'function') m = messages('en');
  if (!Object.hasOwn(MISTAKE_TEXT, id)) return { what: id, fix: '' };
  return { what: m.t(key(id, 'what')), fix: m.t(key(id, 'fix')) };
}
