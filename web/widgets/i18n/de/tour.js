// de messages for tour (see ../README.md).
export default {
  'tour.label': 'Geführte Tour',
  'tour.steps': { one: '{count} Schritt', other: '{count} Schritte' },
  'tour.empty': 'Diese Tour hat noch keine Schritte.',
  'tour.start': 'Tour starten',
  'tour.running': 'Schritt {step} von {total}: Die Tour läuft in der Leiste am unteren Fensterrand.',
  'tour.counter': 'Schritt {step} von {total}',
  'tour.back': 'Zurück',
  'tour.next': 'Weiter',
  'tour.finish': 'Fertig',
  'tour.close': 'Tour schließen',
  'tour.backHint': 'Vorheriger Schritt (← oder Bild ↑; Pos1: der erste)',
  'tour.nextHint': 'Nächster Schritt (→ oder Bild ↓; Ende: der letzte)',
  'tour.keys': '← → oder Bild ↑/↓: blättern · Pos1/Ende: erster/letzter Schritt · Esc: schließen',
};
