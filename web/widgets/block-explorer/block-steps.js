// block-steps.js — <block-explorer>'s account of one block's forward pass: the book's TransformerBlock.forward as one
// entry per operation the core records (code line, role, note; pre- and post-norm), the same steps in the words of
// lesson 82's EncoderBlock, and the dataflow diagram (residual-stream lane, branch, highlighted step) drawn with d3.
// A helper of the element, not a custom element.
import { select } from 'd3-selection';

// The book's TransformerBlock.forward, one entry per operation the core records (inspection.steps, by step id), in
// the core's order. `role` and `note` are message keys (i18n/<locale>/block-explorer.js); stepInfo() with `t` turns
// them into text.
// `stream`: the node sits on the residual stream itself (the input, the additions and, in post-norm, the norms);
// the other nodes are the branch (sublayer) path that is added back.
const NOTE_DROP = 'block.note.drop';
export const STEPS = {
  pre: [
    { id: 'input', op: 'x (input)', code: ['shortcut = x'], role: 'block.role.input', stream: true, note: 'block.note.pre.input' },
    { id: 'norm1', op: 'norm1', code: ['x = self.norm1(x)'], role: 'block.role.norm1Pre', note: 'block.note.pre.norm1' },
    { id: 'att', op: 'att', code: ['x = self.att(x)'], role: 'block.role.att', note: 'block.note.pre.att' },
    { id: 'drop1', op: 'drop_shortcut', code: ['x = self.drop_shortcut(x)'], role: 'block.role.dropout', note: NOTE_DROP },
    { id: 'add1', op: 'x + shortcut', code: ['x = x + shortcut'], role: 'block.role.addBack', stream: true, note: 'block.note.pre.add1' },
    { id: 'norm2', op: 'norm2', code: ['shortcut = x', 'x = self.norm2(x)'], role: 'block.role.norm2Pre', note: 'block.note.pre.norm2' },
    { id: 'ff', op: 'ff', code: ['x = self.ff(x)'], role: 'block.role.ff', note: 'block.note.pre.ff' },
    { id: 'drop2', op: 'drop_shortcut', code: ['x = self.drop_shortcut(x)'], role: 'block.role.dropout', note: NOTE_DROP },
    { id: 'add2', op: 'x + shortcut', code: ['x = x + shortcut'], role: 'block.role.add2Pre', stream: true, note: 'block.note.pre.add2' },
  ],
  post: [
    { id: 'input', op: 'x (input)', code: ['shortcut = x'], role: 'block.role.input', stream: true, note: 'block.note.post.input' },
    { id: 'att', op: 'att', code: ['x = self.att(x)'], role: 'block.role.att', note: 'block.note.post.att' },
    { id: 'drop1', op: 'drop_shortcut', code: ['x = self.drop_shortcut(x)'], role: 'block.role.dropout', note: NOTE_DROP },
    { id: 'add1', op: 'x + shortcut', code: ['x = x + shortcut'], role: 'block.role.addBack', stream: true, note: 'block.note.post.add1' },
    { id: 'norm1', op: 'norm1', code: ['x = self.norm1(x)'], role: 'block.role.norm1Post', stream: true, note: 'block.note.post.norm1' },
    { id: 'ff', op: 'ff', code: ['shortcut = x', 'x = self.ff(x)'], role: 'block.role.ff', note: 'block.note.post.ff' },
    { id: 'drop2', op: 'drop_shortcut', code: ['x = self.drop_shortcut(x)'], role: 'block.role.dropout', note: NOTE_DROP },
    { id: 'add2', op: 'x + shortcut', code: ['x = x + shortcut'], role: 'block.role.addBack', stream: true, note: 'block.note.post.add2' },
    { id: 'norm2', op: 'norm2', code: ['x = self.norm2(x)'], role: 'block.role.norm2Post', stream: true, note: 'block.note.post.norm2' },
  ],
};
/** The two wirings' names (message keys): long for the toggle, short ("pre-norm") inside sentences. */
export const PLACEMENTS = {
  pre: { label: 'block.placement.pre', short: 'block.placement.preShort' },
  post: { label: 'block.placement.post', short: 'block.placement.postShort' },
};

// Lesson 82's EncoderBlock.forward — `x = x + self.attn(self.norm1(x))`, then `x = x + self.ffn(self.norm2(x))` —
// in the core's pre-norm steps. The lesson's block has no dropout: the core records an identity step there.
const LESSON_PRE = byId([
  { id: 'input', code: ['x  # torch.randn(2, 5, 8)'], role: 'block.lesson.role.input', note: 'block.lesson.note.input' },
  { id: 'norm1', code: ['self.norm1(x)'], role: 'block.lesson.role.norm1', note: 'block.lesson.note.norm1' },
  { id: 'att', code: ['self.attn(self.norm1(x))'], role: 'block.lesson.role.att', note: 'block.lesson.note.att' },
  { id: 'drop1', code: ['# (no dropout)'], role: 'block.lesson.role.noDropout', note: 'block.lesson.note.noDropout' },
  { id: 'add1', code: ['x = x + self.attn(self.norm1(x))'], role: 'block.lesson.role.add1', note: 'block.lesson.note.add1' },
  { id: 'norm2', code: ['self.norm2(x)'], role: 'block.lesson.role.norm2', note: 'block.lesson.note.norm2' },
  { id: 'ff', code: ['self.ffn(self.norm2(x))'], role: 'block.lesson.role.ff', note: 'block.lesson.note.ff' },
  { id: 'drop2', code: ['# (no dropout)'], role: 'block.lesson.role.noDropout', note: 'block.lesson.note.noDropout' },
  { id: 'add2', code: ['x = x + self.ffn(self.norm2(x))'], role: 'block.lesson.role.add2', note: 'block.lesson.note.add2' },
]);

function byId(list) {
  return Object.fromEntries(list.map((entry) => [entry.id, entry]));
}

/**
 * One {id, op, code, role, note, stream} per recorded step of placement p, matched by the core's step id;
 * `lesson` uses lesson 82's words (pre-norm). Without `t`, role and note are message keys (null for a step the book
 * does not describe); with `t` (the widget's t()) they are text, a step without words named by its op.
 */
export function stepInfo(p, steps, { lesson = false, t = null } = {}) {
  const book = byId(STEPS[p]);
  const infos = steps.map((st) => {
    const entry = book[st.id] ?? { id: st.id, role: null, note: null };
    // A block without shortcut connections records 'no shortcut' where the book adds one: name it as recorded.
    const info = entry.op === st.op ? entry : { ...entry, op: st.op, code: [st.op], role: null, note: null };
    if (!lesson) return info;
    if (p === 'pre' && LESSON_PRE[st.id]) return { ...info, ...LESSON_PRE[st.id], stream: info.stream };
    // Post-norm has no lesson code (the lesson's block is pre-norm): the book's lines, the lesson's attention.
    return st.id === 'att' ? { ...info, role: LESSON_PRE.att.role } : info;
  });
  if (!t) return infos;
  return infos.map((info) => ({ ...info, role: info.role ? t(info.role) : info.op, note: info.note ? t(info.note) : '' }));
}

/** The block's dataflow diagram in `box`; clicking a node calls onSelect(index); `t` is the widget's t(). */
export class BlockDiagram {
  constructor(box, onSelect, t) {
    this.box = box;
    this.onSelect = onSelect;
    this.t = t;
    this.key = null;
  }

  /**
   * Shows step `current` of `steps` (the inspection's steps of block b, 0-based) described by `info` (one
   * {code, role (text), stream} per step); `labels` {top, bottom} name what enters and leaves the block. Draws the block
   * once per (placement, block, wiring); moving between steps only moves the highlight.
   */
  render({ p, steps, info, current, b, labels }) {
    const key = `${p}|${b}|${labels.top}|${labels.bottom}|${steps.map((st) => `${st.id}:${st.op}`).join()}|${info.map((i) => i.code.at(-1)).join()}`;
    if (key !== this.key) this.draw(steps, info, labels);
    this.key = key;
    const svg = select(this.box).select('svg');
    svg.selectAll('.node').classed('current', (_, k) => k === current);
    svg.selectAll('.lane[data-to]').classed('current', function () {
      return Number(this.dataset.to) === current && steps[current].op === 'x + shortcut';
    });
    const code = (k) => info[k].code.join('; ');
    const placement = this.t(PLACEMENTS[p].short);
    svg.select('title').text(this.t('block.diagram.title', { block: b + 1, placement, step: current + 1,
      count: steps.length, steps: steps.map((_, k) => `${k + 1}. ${code(k)}`).join(' ') }));
    this.box.setAttribute('aria-label', this.t('block.diagram.label', { placement, step: current + 1, count: steps.length,
      code: code(current) }));
  }

  draw(steps, info, labels) {
    const W = 320;
    const pitch = 40;
    const nodeH = 28;
    const top = 34;
    const laneX = 30;
    const branchX = 58;
    const H = top + steps.length * pitch + 30;
    const y = (k) => top + k * pitch;
    this.box.replaceChildren();
    const svg = select(this.box).append('svg').attr('viewBox', `0 0 ${W} ${H}`).attr('role', 'img')
      .attr('aria-labelledby', 'diagram-title');
    svg.append('title').attr('id', 'diagram-title');
    const streamIdx = steps.map((st, k) => (info[k]?.stream ? k : -1)).filter((k) => k >= 0);
    // The residual stream: a lane through the stream nodes; the segment feeding the current addition is highlighted.
    const lanes = svg.append('g');
    lanes.append('line').attr('class', 'lane').attr('x1', laneX).attr('x2', laneX).attr('y1', 4).attr('y2', y(0));
    streamIdx.slice(1).forEach((k, n) => {
      lanes.append('line').attr('class', 'lane animate').attr('data-to', k).attr('x1', laneX).attr('x2', laneX)
        .attr('y1', y(streamIdx[n]) + nodeH / 2).attr('y2', y(k) + nodeH / 2);
    });
    const last = steps.length - 1;
    lanes.append('line').attr('class', 'lane').attr('x1', laneX).attr('x2', laneX).attr('y1', y(last) + nodeH).attr('y2', H - 6);
    svg.append('text').attr('class', 'lane-label').attr('x', laneX + 8).attr('y', 14)
      .text(labels.top);
    svg.append('text').attr('class', 'lane-label').attr('x', laneX + 8).attr('y', H - 8)
      .text(labels.bottom);
    // The branch: arrows between consecutive nodes (the lane carries stream-to-stream steps).
    const flow = svg.append('g');
    for (let k = 0; k < last; k++) {
      if (info[k]?.stream && info[k + 1]?.stream) continue;
      const x = W / 2 + 20;
      const y1 = y(k) + nodeH;
      const y2 = y(k + 1) - 1;
      flow.append('line').attr('class', 'flow').attr('x1', x).attr('x2', x).attr('y1', y1).attr('y2', y2 - 5);
      flow.append('path').attr('class', 'arrowhead').attr('d', `M${x - 4},${y2 - 6}L${x + 4},${y2 - 6}L${x},${y2}Z`);
    }
    // Shortcut labels along the lane next to the branch.
    streamIdx.slice(1).forEach((k, n) => {
      const from = streamIdx[n];
      if (k - from < 2) return;
      const mid = (y(from) + y(k) + nodeH) / 2;
      svg.append('text').attr('class', 'lane-label').attr('transform', `translate(${laneX - 6},${mid}) rotate(-90)`)
        .attr('text-anchor', 'middle').text(this.t('block.diagram.shortcut'));
    });
    const nodes = svg.append('g').selectAll('g').data(steps).join('g')
      .attr('class', (st) => `node${st.id.startsWith('norm') ? ' norm' : ''}`)
      .attr('data-op', (st) => st.op)
      .attr('data-step', (st) => st.id)
      .attr('transform', (_, k) => `translate(0,${y(k)})`)
      .on('click', (_, st) => this.onSelect(steps.indexOf(st)));
    nodes.append('rect').attr('class', 'animate').attr('x', (_, k) => (info[k]?.stream ? 12 : branchX))
      .attr('width', (_, k) => W - 8 - (info[k]?.stream ? 12 : branchX)).attr('height', nodeH).attr('rx', 6);
    nodes.append('text').attr('x', (_, k) => (info[k]?.stream ? 48 : branchX + 10)).attr('y', nodeH / 2 + 4)
      .text((st, k) => (info[k]?.code ?? [st.op]).at(-1));
    nodes.append('title').text((st, k) => `${info[k]?.role ?? st.op}`);
    nodes.filter((st) => st.op === 'x + shortcut').append('g').attr('class', 'plus')
      .call((g) => g.append('circle').attr('cx', laneX).attr('cy', nodeH / 2).attr('r', 9))
      .call((g) => g.append('text').attr('x', laneX).attr('y', nodeH / 2 + 5).attr('text-anchor', 'middle').text('+'));
  }
}
