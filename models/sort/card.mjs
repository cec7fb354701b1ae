// The sorting model's card (README.md next to the shipped weights), written from the recipe's measured metrics so
// its numbers are always the ones the recipe produced; tests check them against a fresh evaluation.
import { roleName, vocabularyText } from './evaluate.mjs';
import { example, makeSplits } from './task.mjs';

const int = (n) => Math.round(n).toLocaleString('en-US');
const pct = (x) => `${(100 * x).toFixed(1)} %`;
const seconds = (s) => (s < 120 ? `${Math.round(s)} s` : `${(s / 60).toFixed(1)} min`);

function headTable(m) {
  const rows = m.heads.map(({ head, attention: a, ablated_exact: ex, ablated_token_accuracy: tok }) => {
    const [block, h] = head.split('.');
    const f = (x) => x.toFixed(2);
    return `| ${block} | ${h} | ${roleName(a)} | ${f(a.next)} (${f(a.uniform_next)}) | ${f(a.current)} | ${f(a.larger)} | ` +
      `${f(a.smaller)} | ${f(a.sep)} | ${f(a.outputs)} | ${pct(ex)} (${pct(tok)}) |`;
  });
  return ['| block | head | role | next (even spread) | just written | larger | smaller | SEP | outputs | held-out exact with this head ablated (tokens) |',
    '|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|', ...rows].join('\n');
}

function sizesTable(m) {
  if (!m.sizes_tried) return 'Not measured yet: `node models/sort/train.mjs --sweep` trains each size of recipe.json\'s "sweep" and fills this in.';
  const rows = m.sizes_tried.map((s) => `| ${s.n_layers} | ${s.n_heads} | ${s.emb_dim} | ${s.ffn_hidden} | ${int(s.parameters)} | ` +
    `${int(s.steps)} | ${seconds(s.train_seconds)} | ${pct(s.heldout_exact)} | ${pct(s.heldout_token_accuracy)} |`);
  return ['| blocks | heads | emb | feed-forward | parameters | steps | training time | held-out exact | held-out tokens |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|', ...rows].join('\n');
}

/** Markdown for `metrics` (as written by train.mjs to metrics.json). */
export function modelCard(m) {
  const c = m.config;
  const t = m.train;
  const { n, alphabet } = m.task;
  const shown = makeSplits({ ...m.task, train_examples: 1, heldout_examples: 1 }).train[0];
  const floor = ((n - 1) * Math.log(alphabet)) / (2 * n);
  const failures = m.heldout_failures.length === 0 ? '' :
    `\n\nFirst wrong outputs: ${m.heldout_failures.map((f) => `${f.input.join(' ')} → ${f.got.join(' ')}`).join('; ')}.`;
  return `# ${m.name}: a ${int(m.parameters)}-parameter GPT that sorts ${n} numbers, trained by Blockscope

A second, small model for the GPT explorer: the book's GPTModel (${c.n_layers} block${c.n_layers > 1 ? 's' : ''}, ${c.n_heads} heads) trained from
seeded random weights by Blockscope's own training core (\`blockscope train\`) to sort ${n} numbers from 0 to ${alphabet - 1}.
It is small enough that every head can be read: the table below says what each one looks at, measured from its
attention weights, and what happens to the answers when it is switched off.

## Task

An example is \`x1 … x${n} SEP y1 … y${n}\`: ${n} numbers drawn uniformly from 0 … ${alphabet - 1} (repeats allowed), the separator,
then the same numbers in ascending order, e.g. \`${example(shown, m.task).map((id) => (id === alphabet ? 'SEP' : id)).join(' ')}\`.
Vocabulary: ${vocabularyText(m.task)}. The model reads the input and SEP and writes the ${n} outputs one at a time
by greedy decoding (the most likely token each time).

| | |
|---|---|
| architecture | GPTModel, ${c.norm}-norm, ${c.activation}, ${c.n_layers} block${c.n_layers > 1 ? 's' : ''}, emb_dim ${c.emb_dim}, ${c.n_heads} heads, feed-forward ${c.ffn_hidden}, untied output head, no qkv bias |
| context | ${c.context_length} tokens (the input, SEP and the first ${n - 1} outputs; the last output is predicted, never read) |
| parameters | ${int(m.parameters)} |
| file | \`model.safetensors\`, ${m.storage.toUpperCase()}, ${int(m.file_bytes)} bytes (book layout) |
| **held-out exact match** | **${pct(m.heldout_exact)} of ${int(m.heldout_examples)} held-out inputs** sorted exactly right by greedy decoding (${pct(m.heldout_token_accuracy)} of output tokens) |
| training | ${int(t.steps)} AdamW steps of ${t.batch_size} examples (${int(m.tokens_seen)} tokens), lr ${t.lr} with ${t.warmup} warmup steps and cosine decay to ${t.min_lr}, weight decay ${t.weight_decay}, clip ${t.clip}, dropout ${c.drop_rate}, seed ${t.seed} (init seed ${m.init_seed}) |
| training time | ${seconds(m.train_seconds)} on ${m.threads} core${m.threads > 1 ? 's' : ''} of the build machine (\`--threads ${m.threads}\`, ${int(m.tokens_per_s)} tokens/s, native build) |
| sha256 | \`${m.sha256}\` |${failures}

## Data

${int(m.task.train_examples)} training inputs and ${int(m.task.heldout_examples)} held-out inputs, drawn by a seeded generator
(mulberry32, seed ${m.task.seed} for training, ${m.task.seed + 1} for held-out; \`models/sort/task.mjs\`). A held-out input is kept only if
it is not among the training inputs (and not a repeat of another held-out one), so every accuracy above is on inputs
the model never saw. There are ${alphabet}^${n} = ${int(alphabet ** n)} possible inputs; training saw ${pct(m.task.train_examples / alphabet ** n)} of them.

Training reads the examples back to back as one \`.ids\` stream, with \`blockscope train --window-stride ${2 * n + 1}\`: every
training window is one whole example. The loss is the ordinary next-token loss over the whole window, input half
included. The input numbers are random, so predicting them costs at least ${(n - 1)} × ln ${alphabet} ÷ ${2 * n} = ${floor.toFixed(4)} nats
per token on average; the outputs (and SEP after ${n} numbers) are certain. The final held-out loss is
${m.final_heldout_loss.toFixed(4)} nats per token, ${(m.final_heldout_loss - floor).toFixed(4)} above that floor${m.final_heldout_loss - floor < 0.01
    ? ', so the output half costs almost nothing' : ''}. ${m.heldout_exact === 1 ? 'Training on the whole sequence was enough to ' +
    'reach 100 %: no loss mask was needed.' : 'This run did not reach 100 %.'}

## Heads

At each output position (SEP and the outputs written so far, each predicting the next output), averaged over the
held-out inputs, the share of each head's attention on: input positions holding the **next** number to write (in
brackets: the share an even spread over the ${n} inputs would give), input positions holding the number **just written**,
inputs **larger** or **smaller** than the next number, **SEP**, and the **outputs** written so far. The last column is
the held-out exact match when that head's output is zeroed (\`blockscope forward --ablate block.head\`, here with
\`generate --ablate\` for greedy decoding). Measured by \`models/sort/evaluate.mjs\` from
\`blockscope forward --json --attention\`.

${headTable(m)}

## Sizes tried

Each trained by this recipe (same data, steps and schedule, one core), by exact match on the held-out inputs:

${sizesTable(m)}

## Recipe

\`\`\`sh
npm run train:sort        # = bash scripts/build.sh native && node models/sort/train.mjs
\`\`\`

\`models/sort/recipe.json\` holds the task, the architecture and the training options; \`train.mjs\` draws the
examples, runs \`blockscope init\`, \`blockscope train\`, \`blockscope convert --dtype ${m.storage}\`, measures the held-out
accuracy and the heads through the CLI, and writes this card and \`metrics.json\` (with the loss curve). The same
command gives the same file on the same CPU build.

## What it can and cannot do

It sorts ${n} numbers from 0 … ${alphabet - 1}, repeats included, and nothing else: another length, a number outside the
alphabet or a prompt without SEP is outside what it was trained on, and its outputs there mean nothing.
`;
}
