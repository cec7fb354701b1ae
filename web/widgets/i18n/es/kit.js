// es messages for kit (see ../README.md).
export default {
  'kit.locked': 'Fijado por la lección',
  'kit.seedNote': 'Una semilla de Blockscope controla el generador aleatorio propio del núcleo: torch.manual_seed con el mismo número da otros números en PyTorch.',
  'kit.rebuilding': 'Reconstruyendo…',
  'kit.restarted': '{message} (El worker del entorno de ejecución se detuvo — {reason} — y se reinició.)',
};
