// The sorting model's card (README.md next to the shipped weights), written from the recipe's measured metrics so
// its numbers are always the ones the recipe produced; tests check them against a fresh evaluation.
import { roleName } from './evaluate.mjs';
import { example, makeSplits, symbols, vocabulary } from './task.mjs';

const int = (n) => Math.round(n).toLocaleString('en-US');
const pct = (x) => `${(100 * x).toFixed(1)} %`;
const small = (x) => (x < 0.01 ? x.toExponential(1) : x.toFixed(4));
const seconds = (s) => (s < 120 ? `${Math.round(s)} s` : `${(s / 60).toFixed(1)} min`);

/** A Markdown table: header cells, alignments ('l' or 'r' per column), rows of cells. */
const table = (header, align, rows) => [header, align.split('').map((a) => (a === 'r' ? '---:' : '---')), ...rows]
  .map((cells) => `| ${cells.join(' | ')} |`).join('\n');

function headTable(m) {
  const f = (x) => x.toFixed(2);
  const rows = m.heads.map(({ head, attention: a, ablated_exact: ex, ablated_token_accuracy: tok }) => [
    ...head.split('.'), roleName(a), pct(a.top_next), pct(a.top_current), pct(a.top_sep),
    `${f(a.next)} (${f(a.uniform_next)})`, f(a.current), f(a.sep), f(a.outputs), `${pct(ex)} (${pct(tok)})`]);
  return table(['block', 'head', 'role', 'strongest arrow on the next number', '… on the number just written', '… on SEP',
    'weight on the next number (even spread)', 'on the number just written', 'on SEP', 'on the outputs',
    'held-out exact with this head ablated (tokens)'], 'rrlrrrrrrrr', rows);
}

/** A JSON array shown by its ends: ["0", "1", …, "15", "SEP"]. */
const listed = (xs) => `[${[...xs.slice(0, 2), '…', ...xs.slice(-2)].map((x) => (x === '…' ? x : JSON.stringify(x))).join(', ')}]`;
const plural = (k, word) => `${k} ${word}${k === 1 ? '' : 's'}`;
const inputsName = (s) => (s.mix_repeats ? 'mixed' : 'uniform');

function sizesTable(m) {
  if (!m.sizes_tried) {
    return 'Not measured yet: `node models/sort/train.mjs --sweep` trains each entry of recipe.json\'s "sweep" and fills this in.';
  }
  const rows = m.sizes_tried.map((s) => [s.n_layers, s.n_heads, s.emb_dim, s.ffn_hidden, inputsName(s), int(s.parameters),
    int(s.steps), seconds(s.train_cpu_seconds), pct(s.heldout_exact), pct(s.heldout_token_accuracy)]);
  const wrong = m.sizes_tried.filter((s) => s.failures.length > 0).map((s) =>
    `- ${plural(s.n_layers, 'block')}, ${plural(s.n_heads, 'head')}, emb ${s.emb_dim}, feed-forward ${s.ffn_hidden}, ${inputsName(s)} inputs: ` +
    s.failures.slice(0, 3).map((f) => `\`${f.input.join(' ')}\` → \`${f.got.join(' ')}\``).join(', '));
  return [table(['blocks', 'heads', 'emb', 'feed-forward', 'training inputs', 'parameters', 'steps',
    'training time (processor)', 'held-out exact', 'held-out tokens'], 'rrrrlrrrrr', rows),
  ...(wrong.length ? ['', 'First wrong outputs of the runs below 100 %:', '', ...wrong] : [])].join('\n');
}

// The chance that a uniform input holds some number at least r times (r > n / 2, so at most one number can).
function repeatsAtLeast(r, { n, alphabet }) {
  const choose = (a, b) => (b === 0 ? 1 : (choose(a, b - 1) * (a - b + 1)) / b);
  const p = 1 / alphabet;
  let one = 0;
  for (let j = r; j <= n; j++) one += choose(n, j) * p ** j * (1 - p) ** (n - j);
  return alphabet * one;
}

// What the head table says, in two or three sentences made from its figures.
function headSummary(m) {
  const finders = m.heads.filter((h) => h.attention.top_next >= 0.5);
  const ablated = m.heads.map((h) => h.ablated_exact);
  const range = (xs, f) => {
    const [lo, hi] = [Math.min(...xs), Math.max(...xs)];
    return lo === hi ? f(lo) : `${f(lo)}–${f(hi)}`;
  };
  const lines = [];
  if (finders.length) {
    const many = finders.length > 1;
    lines.push(`${many ? 'Heads' : 'Head'} ${finders.map((h) => h.head).join(' and ')} ${many ? 'are' : 'is'} the "find the ` +
      'smallest number not yet written" step: the strongest arrow points at the next number in ' +
      `${range(finders.map((h) => h.attention.top_next), pct)} of the steps. Even so, ${many ? 'they put' : 'it puts'} ` +
      `${range(finders.map((h) => h.attention.next), (x) => x.toFixed(2))} of the weight there, much of the rest on the number ` +
      'just written and its neighbours: attention narrows the choice, and what follows it (feed-forward layer, output head) ' +
      'turns the mixture into the answer.');
  }
  lines.push(`Switching off any one head drops the held-out exact match to ${range(ablated, pct)}` +
    `${Math.max(...ablated) < 0.5 ? ': no head is spare.' : '.'}`);
  return lines.join(' ');
}

/** Markdown for `metrics` (as written by train.mjs to metrics.json). */
export function modelCard(m) {
  const c = m.config;
  const t = m.train;
  const { n, alphabet } = m.task;
  const shown = makeSplits({ ...m.task, train_examples: 1, heldout_examples: 1 }).train[0];
  const floor = ((n - 1) * Math.log(alphabet)) / (2 * n);
  const words = (ids) => ids.map((id) => symbols(m.task)[id]).join(' ');
  const prompt = words(example(shown, m.task).slice(0, n + 1)); // the input and SEP, as tokens.json spells them
  const failures = m.heldout_failures.length === 0 ? '' :
    `\n\nFirst wrong outputs: ${m.heldout_failures.map((f) => `${f.input.join(' ')} → ${f.got.join(' ')}`).join('; ')}.`;
  return `# ${m.name}: a ${int(m.parameters)}-parameter GPT that sorts ${n} numbers, trained by Blockscope

A second, small model for the GPT explorer: the book's GPTModel (${plural(c.n_layers, 'block')}, ${plural(c.n_heads, 'head')}) trained from
seeded random weights by Blockscope's own training core (\`blockscope train\`) to sort ${n} numbers from 0 to ${alphabet - 1}.
It is small enough that every head can be read: the table below says what each one looks at, measured from its
attention weights, and what happens to the answers when it is switched off.

## Task

An example is \`x1 … x${n} SEP y1 … y${n}\`: ${n} numbers drawn uniformly from 0 … ${alphabet - 1} (repeats allowed), the separator,
then the same numbers in ascending order, e.g. \`${example(shown, m.task).map((id) => (id === alphabet ? 'SEP' : id)).join(' ')}\`.
Vocabulary: ${vocabulary(m.task).size} ids: 0 … ${alphabet - 1} are the numbers themselves, ${vocabulary(m.task).sep} is SEP. The model reads the input and SEP and writes the ${n} outputs one at a time
by greedy decoding (the most likely token each time). \`tokens.json\` names the ids in order (\`${listed(symbols(m.task))}\`): it is the
model's own tokenizer, so the CLI and \`<gpt-explorer model="sort">\` read and write the numbers as text, \`${prompt}\`.

| | |
|---|---|
| architecture | GPTModel, ${c.norm}-norm, ${c.activation}, ${plural(c.n_layers, 'block')}, emb_dim ${c.emb_dim}, ${plural(c.n_heads, 'head')}, feed-forward ${c.ffn_hidden}, untied output head, no qkv bias |
| context | ${c.context_length} tokens (the input, SEP and the first ${n - 1} outputs; the last output is predicted, never read) |
| parameters | ${int(m.parameters)} |
| file | \`model.safetensors\`, ${m.storage.toUpperCase()}, ${int(m.file_bytes)} bytes (book layout) |
| **held-out exact match** | **${pct(m.heldout_exact)} of ${int(m.heldout_examples)} held-out inputs** sorted exactly right by greedy decoding (${pct(m.heldout_token_accuracy)} of output tokens) |
| training | ${int(t.steps)} AdamW steps of ${t.batch_size} examples (${int(m.tokens_seen)} tokens), lr ${t.lr} with ${t.warmup} warmup steps and cosine decay to ${t.min_lr}, weight decay ${t.weight_decay}, clip ${t.clip}, dropout ${c.drop_rate}, seed ${t.seed} (init seed ${m.init_seed}) |
| training time | ${seconds(m.train_cpu_seconds)} of processor time on ${m.threads} core${m.threads > 1 ? 's' : ''} (\`--threads ${m.threads}\`, native build; ${seconds(m.train_seconds)} wall-clock on the shared 2-core build machine) |
| sha256 | \`${m.sha256}\` |${failures}

## Data

${int(m.task.train_examples)} training inputs and ${int(m.task.heldout_examples)} held-out inputs, drawn by a seeded generator
(mulberry32, seed ${m.task.seed} for training, ${m.task.seed + 1} for held-out; \`models/sort/task.mjs\`). A held-out input is kept only if
it is not among the training inputs (and not a repeat of another held-out one), so every accuracy above is on inputs
the model never saw. There are ${alphabet}^${n} = ${int(alphabet ** n)} possible inputs; training saw at most 1 in ${int(alphabet ** n / m.task.train_examples)} of them.
${m.task.mix_repeats ? `
The held-out inputs are plain uniform draws. The training inputs are not: each is drawn from a random subset of k
numbers, k uniform in 1 … ${alphabet}, so inputs with many repeats are common. Under uniform draws they are rare (one
number at least five times among ${n}: 1 input in ${int(1 / repeatsAtLeast(5, m.task))}), and models trained on uniform draws alone missed such inputs (see
"Sizes tried").
` : ''}
Training reads the examples back to back as one \`.ids\` stream, with \`blockscope train --window-stride ${2 * n + 1}\`: every
training window is one whole example. The loss is the ordinary next-token loss over the whole window, input half
included: no loss mask. The input numbers are random, so on uniform inputs predicting them costs at least
${n - 1} × ln ${alphabet} ÷ ${2 * n} = ${floor.toFixed(4)} nats per token on average, while the outputs (and SEP after ${n} numbers) are
certain. On the held-out inputs the final loss is ${m.final_heldout_loss.toFixed(4)} nats per token over whole examples${m.task.mix_repeats
    ? ' (above the floor: the model expects the repeats of its training inputs)' : ''}, and
${small(m.heldout_output_loss)} nats per output token over the output half alone.${m.heldout_exact === 1
    ? ' Training on whole sequences was enough to reach 100 %: no mask was needed.' : ''}

## Heads

When the model writes an output, it reads SEP or the output just written and predicts the next one. At those
positions, over the ${int(m.heldout_examples)} held-out inputs, the table gives for each head how often its **strongest arrow** (its
largest attention weight) points at an input holding the next number to write, at an input holding the number just
written, or at SEP; and the mean **weight** it puts on those places and on the outputs written so far (in brackets:
the weight on the next number that an even spread over the ${n} inputs would give). Repeats count together: with the
input 3 7 3, both 3s hold "the number 3". The last column is the held-out exact match when that head's output is
zeroed (\`--ablate block.head\`, greedy decoding as above). Measured by \`models/sort/evaluate.mjs\` from
\`blockscope forward --json --attention\`; \`metrics.json\` also has the weight on inputs larger and smaller than the next
number.

${headTable(m)}

${headSummary(m)}

## Sizes tried

Each trained by this recipe's steps and schedule on one core (\`node models/sort/train.mjs --sweep\`), on mixed or
uniform training inputs as the column says, and measured by greedy exact match on ${int(m.task.heldout_examples)} uniform held-out
inputs outside its own training set:

${sizesTable(m)}

## Try it

\`\`\`sh
B=build/release/cli/blockscope
$B generate --model web/models/sort --prompt "${prompt}" --max-new-tokens ${n} --temperature 0   # ${words(example(shown, m.task).slice(n + 1))}
$B generate --model web/models/sort --prompt-ids ${[...shown, alphabet].join(',')} --max-new-tokens ${n} --temperature 0 --no-stop --json
$B forward --model web/models/sort --tokens ${example(shown, m.task).slice(0, 2 * n).join(',')} --json --attention   # every head's weights
$B generate ... --ablate 1.0                                    # the same with head 1.0 switched off
\`\`\`

In a web page, \`<gpt-explorer model="sort"></gpt-explorer>\` opens this model with that prompt and greedy decoding of
${n} tokens, next to its untrained twin; tick a head in its ablation checkboxes (or set \`ablate="1.0"\`) and watch the
sorted output change.

## Recipe

\`\`\`sh
npm run train:sort        # = bash scripts/build.sh native && node models/sort/train.mjs
\`\`\`

\`models/sort/recipe.json\` holds the task, the architecture and the training options; \`train.mjs\` draws the
examples, runs \`blockscope init\`, \`blockscope train\`, \`blockscope convert --dtype ${m.storage}\`, writes \`tokens.json\`, measures
the held-out accuracy and the heads through the CLI, and writes this card and \`metrics.json\` (with the loss curve). The same
command gives the same file on the same CPU build.

## What it can and cannot do

It sorts ${n} numbers from 0 … ${alphabet - 1}, repeats included, and nothing else: another length, a number outside the
alphabet or a prompt without SEP is outside what it was trained on, and its outputs there mean nothing.
`;
}
