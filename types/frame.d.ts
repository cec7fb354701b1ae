// Types of `blockscope/frame` (web/blockscope-frame.js): <blockscope-frame>, one widget in an iframe (embed.html)
// that is as tall as its content and, with sync-url, keeps the widget's state in the page's URL hash. Standalone:
// importing it defines the element and loads nothing else.

/** The message embed.html posts to its parent each time its content's height changes. */
export interface FrameHeightMessage {
  type: 'blockscope-frame-height';
  /** The frame's name: embed.html's `frame=` query parameter (<blockscope-frame>: its id, else the widget's tag). */
  frame: string;
  /** The content's height in CSS pixels. */
  height: number;
}

/** The widget's state, from the frame (with sync-url, to the parent's origin only) or to it (to set the state). */
export interface FrameStateMessage {
  type: 'blockscope-frame-state';
  frame: string;
  /** The widget's tag (from the frame only). */
  widget?: string;
  /** The attributes that differ from their defaults, as a query string: "x=2&derivative=true". */
  state: string;
}

export const FRAME_TAG: 'blockscope-frame';
export const HEIGHT_MESSAGE: 'blockscope-frame-height';
export const STATE_MESSAGE: 'blockscope-frame-state';

export class BlockscopeFrame extends HTMLElement {
  /** The iframe, once the element has been on the page. */
  readonly frame: HTMLIFrameElement | null;
  /** What names this frame in messages and in the page's hash: the element's id, else the widget's tag. */
  readonly key: string;
  /** The frame's height in px as it last said it (null before it has). */
  readonly contentHeight: number | null;
}

declare global {
  interface HTMLElementTagNameMap {
    'blockscope-frame': BlockscopeFrame;
  }
  interface HTMLElementEventMap {
    'blockscope-frame-resize': CustomEvent<{ height: number }>;
  }
}
