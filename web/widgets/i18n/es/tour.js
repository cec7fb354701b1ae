// es messages for tour (see ../README.md).
export default {
  'tour.label': 'Recorrido guiado',
  'tour.steps': { one: '{count} paso', other: '{count} pasos' },
  'tour.empty': 'Este recorrido aún no tiene pasos.',
  'tour.start': 'Empezar el recorrido',
  'tour.running': 'Paso {step} de {total}: el panel del recorrido está en la parte inferior de la ventana.',
  'tour.counter': 'Paso {step} de {total}',
  'tour.back': 'Atrás',
  'tour.next': 'Siguiente',
  'tour.finish': 'Terminar',
  'tour.close': 'Cerrar el recorrido',
  'tour.backHint': 'Paso anterior (← o Re Pág; Inicio: el primero)',
  'tour.nextHint': 'Paso siguiente (→ o Av Pág; Fin: el último)',
  'tour.keys': '← → o Re Pág/Av Pág: pasar · Inicio/Fin: primer/último paso · Esc: cerrar',
};
