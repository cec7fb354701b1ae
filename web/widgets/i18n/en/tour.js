// en messages for tour (see ../README.md).
export default {
  'tour.label': 'Guided tour',
  'tour.steps': { one: '{count} step', other: '{count} steps' },
  'tour.empty': 'This tour has no steps yet.',
  'tour.start': 'Start the tour',
  'tour.running': 'Step {step} of {total}: the tour’s panel is at the bottom of the window.',
  'tour.counter': 'Step {step} of {total}',
  'tour.back': 'Back',
  'tour.next': 'Next',
  'tour.finish': 'Finish',
  'tour.close': 'Close the tour',
  'tour.backHint': 'Previous step (← or Page Up; Home: the first)',
  'tour.nextHint': 'Next step (→ or Page Down; End: the last)',
  'tour.keys': '← → or Page Up/Down: step · Home/End: first/last · Esc: close',
};
