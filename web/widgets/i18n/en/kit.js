// en messages for kit (see ../README.md).
export default {
  'kit.locked': 'Set by the lesson',
  'kit.seedNote': 'A Blockscope seed drives the core’s own random generator: torch.manual_seed with the same number gives PyTorch different numbers.',
  'kit.rebuilding': 'Rebuilding…',
  'kit.restarted': '{message} (The runtime’s worker stopped — {reason} — and was restarted.)',
};
