// block-numbers.js — how <block-explorer> writes differences for reading, in the widget's language: 1.2e-7 (1,2e-7
// in German) and three significant digits. `num` is the widget's (or a panel port's) num(); numbers for code and
// events do not come through here.

/** `v` in exponent notation with `digits` decimals, the mantissa in the locale ("1.2e-7" / "1,2e-7"). */
export function expNum(num, v, digits) {
  const [mantissa, exponent] = v.toExponential(digits).split('e');
  return `${num(Number(mantissa), digits)}e${exponent}`;
}

/** A difference to three significant digits (as toPrecision(3)), exponent notation below 0.001; 0 as "0". */
export function diffNum(num, v) {
  if (v === 0) return '0';
  if (v < 1e-3) return expNum(num, v, 1);
  const text = v.toPrecision(3);
  if (text.includes('e')) return expNum(num, v, 2);
  return num(v, (text.split('.')[1] ?? '').length);
}
