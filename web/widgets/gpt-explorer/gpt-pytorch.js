// gpt-pytorch.js — <gpt-explorer>'s "Copy as PyTorch": the book's GPTModel (chapter 4, with the config keys
// Blockscope adds: ffn_hidden, activation, norm, layer_norm_epsilon, tie_weights), the weights the widget ran — from
// the shipped model's URL, or from a file the learner downloads with the panel's button (an untrained, random or
// loaded model has no URL PyTorch could read) —, the prompt's token ids as the widget tokenized them, and the top
// next-token candidates with their softmax probabilities: the numbers the widget's table shows. The last line,
// `candidates [[id, probability], …]`, is what tests/browser compares with the widget. No DOM.
import { GPT_MODEL_PY, pyConfig, SAFETENSORS_PY } from '../kit/pytorch-gpt.js';

/** The file name the download button saves the current weights under (and the snippet reads). */
export const WEIGHTS_FILE = 'blockscope-gpt.safetensors';


const pyStr = (s) => JSON.stringify(s); // a JSON string is a valid Python string literal

/**
 * The snippet. state: {config, ids, prompt, k, tokenizer: 'bytes'|'gpt2'|'symbols', tokenizerSource (a model's own
 * tokenizer files, or null), symbols (a symbol vocabulary in id order, for 'symbols'), weightsUrl (the shipped model's
 * model.safetensors, absolute) or null (the learner downloads WEIGHTS_FILE), label}.
 */
export function gptSnippet({ config, ids, prompt, k, tokenizer, tokenizerSource = null, symbols = null, weightsUrl, label }) {
  const bpe = tokenizer === 'gpt2';
  const named = tokenizer === 'symbols' && symbols;
  const own = bpe && tokenizerSource;
  const source = weightsUrl
    ? `WEIGHTS = ${pyStr(weightsUrl)}\ndata = urllib.request.urlopen(WEIGHTS).read()`
    : `# Save this model's weights with the widget's "Download the weights" button, next to this notebook.\n` +
      `WEIGHTS = ${pyStr(WEIGHTS_FILE)}\ndata = open(WEIGHTS, "rb").read()`;
  const tokens = named
    ? `SYMBOLS = ${JSON.stringify(symbols)}  # the model's tokens.json (${String(tokenizerSource).replace(/\s+/g, ' ')}): id = index\n` +
      `ids = [SYMBOLS.index(w) for w in prompt.split()][-cfg["context_length"]:]\n` +
      `assert ids == ${JSON.stringify(ids)}  # as the widget tokenized it`
    : own
    ? `# The model's own byte-level BPE (${String(tokenizerSource).replace(/\s+/g, ' ')}), as the widget tokenized it:\n` +
      `# tokenizers.ByteLevelBPETokenizer("vocab.json", "merges.txt").encode(prompt).ids\nids = ${JSON.stringify(ids)}`
    : bpe
    ? `# GPT-2's BPE, as the widget tokenized it: tiktoken.get_encoding("gpt2").encode(prompt)\nids = ${JSON.stringify(ids)}`
    : `ids = list(prompt.encode("utf-8"))[-cfg["context_length"]:]  # one token per UTF-8 byte\n` +
      `assert ids == ${JSON.stringify(ids)}  # as the widget tokenized it`;
  const show = named
    ? 'show = lambda i: SYMBOLS[i]'
    : bpe
    ? `show = lambda i: str(i)  # ${own ? 'the tokenizer\'s id_to_token(i)' : 'tiktoken.get_encoding("gpt2").decode([i])'} prints the text`
    : 'show = lambda i: repr(bytes([i]))';
  return `# <gpt-explorer> as PyTorch: ${label}, the prompt below, the top ${k} next-token candidates.
# The book's GPTModel (chapter 4) with the config keys Blockscope adds; eval mode, so dropout is off.
import json, struct, urllib.request
${GPT_MODEL_PY}

${SAFETENSORS_PY}

cfg = ${pyConfig(config)}
${source}
model = GPTModel(cfg).eval()
missing, unexpected = model.load_state_dict(read_safetensors(data), strict=False)
assert not unexpected and all(m.endswith("att.mask") or (m == "out_head.weight" and cfg.get("tie_weights")) for m in missing)

prompt = ${pyStr(prompt)}
${tokens}
with torch.no_grad():
    logits = model(torch.tensor([ids]))[0, -1]  # the last token's row: the next token's scores
probs = torch.softmax(logits, dim=-1)
top = torch.topk(probs, ${k})
${show}
for rank, (p, i) in enumerate(zip(top.values.tolist(), top.indices.tolist()), 1):
    print(f"# {rank:2d}. {show(i):>10}  {100 * p:6.2f} %")
print("candidates", json.dumps([[i, p] for p, i in zip(top.values.tolist(), top.indices.tolist())]))
`;
}
