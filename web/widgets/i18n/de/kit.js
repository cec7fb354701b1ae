// de messages for kit (see ../README.md).
export default {
  'kit.locked': 'Von der Lektion festgelegt',
  'kit.seedNote': 'Ein Blockscope-Seed steuert den eigenen Zufallsgenerator des Kerns: torch.manual_seed mit derselben Zahl liefert in PyTorch andere Zahlen.',
  'kit.rebuilding': 'Wird neu aufgebaut…',
  'kit.restarted': '{message} (Der Worker der Laufzeit hielt an — {reason} — und wurde neu gestartet.)',
};
