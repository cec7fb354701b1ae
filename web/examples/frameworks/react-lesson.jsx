// react-lesson.jsx — Blockscope widgets inside a React 19 app (tests/browser/frameworks.test.mjs builds it with
// esbuild and opens react.html). What it shows an author:
//  - attributes as props (x, lang, controls, sections): React 19 sets an attribute when the element has no property
//    of that name, a property when it has one (lang);
//  - data as the `state` property: lists and rows of numbers as arrays ({values: [[1, 3], [5, 7]]});
//  - events as on<event-name> props (React 19 adds the listener for custom elements): onblockscope-readout;
//  - methods through a ref (toPyTorch()).
// The widgets bundle is not bundled into the app: it is loaded from where it is hosted (here /dist/), so its worker
// and wasm are found next to it. Each widget's code arrives when the page first uses its tag; React 19 sets a prop as
// a property only on an element that has it, so the app loads its tags (load(), the classes) before its first render.
import { useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { load } from '/dist/blockscope-widgets.js';

const LANGS = { en: 'English', de: 'Deutsch', es: 'Español' };

function Lesson() {
  const [x, setX] = useState(1);
  const [lang, setLang] = useState('en');
  const [readout, setReadout] = useState(null);
  const [rows, setRows] = useState([[1, 3, 5, 7], [2, 4, 6, 8]]);
  const [snippet, setSnippet] = useState('');
  const gelu = useRef(null);
  return (
    <main>
      <h1>GELU and LayerNorm, driven by React</h1>
      <p>
        <label>
          x for the readout{' '}
          <input id="react-x" type="range" min="-3" max="3" step="0.5" value={x} onChange={(e) => setX(Number(e.target.value))} />
        </label>{' '}
        <label>
          language{' '}
          <select id="react-lang" value={lang} onChange={(e) => setLang(e.target.value)}>
            {Object.entries(LANGS).map(([tag, name]) => <option key={tag} value={tag}>{name}</option>)}
          </select>
        </label>
      </p>
      <gelu-explorer ref={gelu} id="gelu" x={x} lang={lang} controls="none" sections="title, chart, readout"
        onblockscope-readout={(e) => setReadout(e.detail)}>
        <p slot="intro">The slider above is React state; the widget follows it.</p>
      </gelu-explorer>
      <p id="react-readout">
        {readout ? `React heard: GELU(${readout.x}) = ${readout.values.gelu_tanh}` : 'React is waiting for a readout…'}
      </p>
      <button id="react-copy" type="button" onClick={() => setSnippet(gelu.current.toPyTorch())}>Copy the state as PyTorch</button>
      <pre id="react-snippet">{snippet}</pre>
      <button id="react-rows" type="button" onClick={() => setRows([[0, 0, 0, 4], [1, -1, 1, -1]])}>New activations</button>
      <layernorm-explorer id="ln" lang={lang} state={{ values: rows }} sections="title, detail"></layernorm-explorer>
    </main>
  );
}

await Promise.all(['gelu-explorer', 'layernorm-explorer'].map(load));
createRoot(document.getElementById('app')).render(<Lesson />);
