// tour-names.js — the tags and the event name of <blockscope-tour>: what the bundle's entry and kit/elements.js
// need of the tour without loading its code (tour.js, a chunk of its own).
export const TOUR_TAG = 'blockscope-tour';
export const STEP_TAG = 'blockscope-step';
export const TOUR_STEP_EVENT = 'blockscope-tour-step';
