// The BPE model's card (README.md next to web/models/brown-bpe/), written from the recipe's measured metrics
// (metrics.json) and the experiments recipe-bpe.json records, so its numbers are always measured ones; tests
// check them against a fresh evaluation.
import { duration, int, LN2, mb } from './card.mjs';

const pct = (r) => `${(100 * r).toFixed(1)} %`;

/** "1 h 1 min with --threads 2 (5,098 tokens/s)", one such per training phase. */
function phaseTimes(m) {
  const phases = m.phases ?? [{ seconds: m.train_seconds, threads: m.threads, tokens_per_s: m.tokens_per_s }];
  return phases.map((p) => `${duration(p.seconds)} with \`--threads ${p.threads}\` (${int(p.tokens_per_s)} tokens/s)`)
    .join(', then ');
}

/** The "sizes and tokenizers tried" table: recipe.tried (each a measured run), then this model. */
function tried(rows, m) {
  const c = m.config;
  const self = { model: `${c.n_layers} blocks × emb ${c.emb_dim}, ${c.n_heads} heads, ffn ${c.ffn_hidden}, dropout ${c.drop_rate} (this recipe)`,
    tokenizer: `BPE, ${int(m.tokenizer.merges)} merges (${int(m.tokenizer.vocab_size)})`, parameters: m.parameters,
    training: `${int(m.train.steps + (m.continue?.steps ?? 0))} steps × ${int(m.train.batch_size * c.context_length)} tokens, ${duration(m.train_seconds)}`,
    val_bits_per_byte: m.val_bits_per_byte, prose_bits_per_byte: m.prose.bits_per_byte, word_rate: m.word_rate.rate };
  const lines = [...rows, self].map((r) => `| ${r.model} | ${r.tokenizer} | ${int(r.parameters)} | ${r.training} | ` +
    `${r.val_bits_per_byte.toFixed(3)} | ${r.prose_bits_per_byte.toFixed(3)} | ${pct(r.word_rate)} |`);
  return ['| model | tokenizer | parameters | training | Brown held-out (bits/byte) | held-out prose (bits/byte) | English words |',
    '|---|---|---:|---|---:|---:|---:|', ...lines].join('\n');
}

/** Markdown for `m` (metrics.json) and `recipe` (recipe-bpe.json). */
export function bpeModelCard(m, recipe) {
  const c = m.config;
  const t = m.train;
  const tk = m.tokenizer;
  const tokensPerStep = t.batch_size * (t.grad_accum ?? 1) * c.context_length;
  const samples = m.samples.map((s) => `- **${JSON.stringify(s.prompt)}**\n  - greedy: ${JSON.stringify(s.greedy)}` +
    `\n  - sampled: ${JSON.stringify(s.sampled)}`).join('\n');
  const valBytesPerToken = m.val_loss / LN2 / m.val_bits_per_byte;
  return `# ${m.name}: a ${(m.parameters / 1e6).toPrecision(2)} M-parameter GPT with its own BPE tokenizer, trained on the Brown corpus by Blockscope

The book's GPTModel (chapter 4) trained from seeded random weights by Blockscope's own training core
(\`blockscope train\`), reading tokens of a **byte-level BPE tokenizer the core learned from the same training
text** (\`blockscope tokenizer train\`, ${int(tk.merges)} merges). Its tokens are mostly whole words and common word
pieces, so the model spends its capacity on which word comes next rather than on spelling: it writes English words.
\`vocab.json\` and \`merges.txt\` next to the weights are GPT-2's file format; the CLI, the widgets, Hugging Face
\`tokenizers\` and \`gpt-tokenizer\` load them and encode alike (tests/cli/tokenizer-train.test.mjs).

| | |
|---|---|
| architecture | GPTModel, pre-norm, GELU (tanh), ${c.n_layers} blocks, emb_dim ${c.emb_dim}, ${c.n_heads} heads, feed-forward ${c.ffn_hidden ?? 4 * c.emb_dim}, untied output head, no qkv bias |
| tokenizer | byte-level BPE, ${int(tk.vocab_size)} ids (256 bytes + ${int(tk.merges)} merges), GPT-2's pre-tokenizer; ${tk.train_bytes_per_token.toFixed(3)} bytes per token on the training text, ${valBytesPerToken.toFixed(3)} on the held-out documents |
| context | ${c.context_length} tokens (about ${int(c.context_length * valBytesPerToken)} bytes) |
| parameters | ${int(m.parameters)} |
| file | \`model.safetensors\`, ${m.storage.toUpperCase()} storage, ${mb(m.file_bytes)}, plus \`vocab.json\` and \`merges.txt\` |
| **validation loss** | **${m.val_loss.toFixed(4)} nats per token = ${m.val_bits_per_byte.toFixed(4)} bits per byte** over ${int(m.val_tokens)} predicted tokens of the held-out Brown documents |
| **held-out prose** | **${m.prose.bits_per_byte.toFixed(4)} bits per byte** (${m.prose.loss.toFixed(4)} nats per token) on ${m.prose.source}: ${int(m.prose.bytes)} bytes no model here trained on |
| **English words** | **${pct(m.word_rate.rate)}** of ${int(m.word_rate.words)} words in ${m.word_rate.samples} continuations sampled at temperature 0.8, top-k 40 (${m.word_rate.max_new_tokens} tokens each), by Debian's \`wamerican\` list |
| training | ${int(t.steps)} AdamW steps of ${int(tokensPerStep)} tokens, lr ${t.lr} with ${t.warmup} warmup steps and cosine decay to ${t.min_lr}, weight decay ${t.weight_decay}, clip ${t.clip}, dropout ${c.drop_rate}, seed ${t.seed} (init seed ${m.init_seed})${m.continue ? `; then ${int(m.continue.steps)} more steps from those weights with a fresh AdamW state, lr ${m.continue.lr} (${m.continue.warmup} warmup steps) decaying to ${m.continue.min_lr}, seed ${m.continue.seed}` : ''}: ${int(m.tokens_seen)} tokens, ${m.epochs.toFixed(2)} epochs |
| training time | ${phaseTimes(m)} on the 2-core build machine (native \`-march=native\` build; the same thread count gives the same weights) |
| sha256 | \`${m.sha256}\` |

## Data

The Brown corpus (1961 American English, 500 documents) from ${m.corpus.source}, prepared
as for the byte model (\`models/brown/prepare-corpus.mjs\`): every 20th document held out
(${m.corpus.val_documents.length} documents, ${int(m.corpus.val_bytes)} bytes), the other ${int(m.corpus.train_bytes)} bytes
train both the tokenizer and the model. The held-out prose (${m.prose.documents.length} addresses) is a genre Brown
does not contain; it is read only to measure.

## Recipe

\`\`\`sh
npm run train:model        # = bash scripts/build.sh native && node models/brown/train.mjs --recipe bpe
\`\`\`

\`models/brown/recipe-bpe.json\` holds the tokenizer size, the architecture and the training options;
\`train.mjs\` prepares the corpus, runs \`blockscope tokenizer train\`, \`init\`, \`train --val-data --threads\`,
\`convert --dtype ${m.storage}\`, \`eval\` (held-out documents and prose) and \`generate\` (the word rate), and writes
this card and \`metrics.json\`.

## Sizes and tokenizers tried

Measured with the same CLI; bits per byte make the vocabularies comparable (nats per token ÷ ln 2 ÷ bytes per token).
The byte model is the one \`<gpt-explorer>\` ships as \`models/brown/\`.

${tried(recipe.tried, m)}

${recipe.tried_notes}

## What it can and cannot do

It writes mostly real English words in plausible local order, with punctuation and capitals; it has not learned
meaning, facts or long-range coherence (${(m.parameters / 1e6).toFixed(1)} M parameters, ${(m.corpus.train_bytes / 1e6).toFixed(1)} MB of
1961 prose, which it echoes with that era's wording and biases). Words the tokenizer never merged are spelled
from pieces, and that is where its invented words come from (${m.word_rate.unknown.slice(0, 8).map((w) => `"${w}"`).join(', ')}).

Continuations of the recipe's prompts, greedy (temperature 0) and sampled (temperature 0.8, top-k 40, seed 1):

${samples}
`;
}
