"""Unit tests of the blockscope package: keyword arguments -> attributes, the errors, check=, the HTML and which
output carries the files. Standard library only (torch is used where it is installed). Run from the repository:
    PYTHONPATH=python python3 -m unittest discover -s python/tests
tests/python/notebook.test.mjs runs them against the installed package, then a real notebook in Chromium."""

import json
import os
import re
import struct
import unittest

import blockscope
from blockscope import _assets, _files, _session, _spec

try:
    import torch
except ImportError:  # the tests that need it are skipped
    torch = None


class FakeTensor:
    """Something tensor-like by duck typing: .tolist() and a dtype, neither torch nor NumPy."""

    def __init__(self, data, dtype="float32"):
        self.data = data
        self.dtype = dtype

    def tolist(self):
        return self.data


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


class Names(unittest.TestCase):
    def test_widgets_are_the_bundles(self):
        self.assertEqual(set(blockscope.widgets()), {"layernorm-explorer", "gelu-explorer", "ffn-explorer", "block-explorer",
                                                     "gpt-explorer", "training-lab", "residual-flow-explorer"})

    def test_widget_names_forgive_case_and_underscores(self):
        self.assertEqual(blockscope.show("GELU_Explorer").tag, "gelu-explorer")

    def test_an_unknown_widget_is_named_with_a_guess(self):
        with self.assertRaises(blockscope.UnknownWidgetError) as e:
            blockscope.show("layernorm")
        self.assertIn("'layernorm'", str(e.exception))
        self.assertIn("layernorm-explorer", str(e.exception))
        with self.assertRaises(blockscope.BlockscopeError):
            blockscope.show(42)

    def test_underscores_become_dashes(self):
        w = blockscope.show("gelu-explorer", check_form="erf", sync_url=True, x=0.5)
        self.assertEqual(w.attrs, {"check-form": "erf", "sync-url": "", "x": "0.5"})
        self.assertEqual(w.element_html(), '<gelu-explorer check-form="erf" sync-url x="0.5"></gelu-explorer>')

    def test_an_unknown_attribute_is_named_with_the_widget_and_a_guess(self):
        with self.assertRaises(blockscope.UnknownAttributeError) as e:
            blockscope.show("layernorm-explorer", tokens=[[1, 2]])
        text = str(e.exception)
        self.assertIn("<layernorm-explorer> has no attribute tokens", text)
        self.assertIn("values=", text)  # its doc says "tokens split by ';'"
        self.assertIsInstance(e.exception, TypeError)  # like any unexpected keyword argument
        with self.assertRaises(blockscope.UnknownAttributeError) as e:
            blockscope.show("gelu-explorer", check_fom="erf")
        self.assertIn("check_form=", str(e.exception))

    def test_common_attributes_and_id(self):
        w = blockscope.show("gelu-explorer", theme="dark", lang="de", id="g1")
        self.assertEqual(w.attrs, {"theme": "dark", "lang": "de", "id": "g1"})

    def test_the_specs_are_the_widgets(self):
        specs = blockscope.attributes("layernorm-explorer")
        self.assertEqual(specs["token"]["max"], 64)
        self.assertIn("lang", specs)
        self.assertEqual(blockscope.check_inputs("gelu-explorer"), [-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0])
        self.assertIsNone(blockscope.check_inputs("layernorm-explorer"))


class Values(unittest.TestCase):
    def test_booleans_are_presence_or_false_where_on_by_default(self):
        self.assertEqual(blockscope.show("gelu-explorer", derivative=True).attrs, {"derivative": ""})
        self.assertEqual(blockscope.show("gelu-explorer", derivative=False).attrs, {})
        self.assertEqual(blockscope.show("ffn-explorer", attn_out_bias=False).attrs, {"attn-out-bias": "false"})
        with self.assertRaises(blockscope.AttributeValueError):
            blockscope.show("gelu-explorer", derivative="yes")

    def test_none_leaves_an_attribute_out(self):
        self.assertEqual(blockscope.show("gelu-explorer", x=None).attrs, {})

    def test_numbers(self):
        w = blockscope.show("layernorm-explorer", gamma=1.5, beta=-0.25, token=2.0, eps=1e-5)
        self.assertEqual(w.attrs, {"gamma": "1.5", "beta": "-0.25", "token": "2", "eps": "1e-05"})
        with self.assertRaises(blockscope.AttributeValueError) as e:
            blockscope.show("gelu-explorer", x=100)
        self.assertIn("<gelu-explorer> x goes from -20 to 20", str(e.exception))
        with self.assertRaises(blockscope.AttributeValueError):
            blockscope.show("layernorm-explorer", token=1.5)
        with self.assertRaises(blockscope.AttributeValueError):
            blockscope.show("gelu-explorer", x=float("nan"))
        with self.assertRaises(blockscope.AttributeValueError):
            blockscope.show("gelu-explorer", x="far")
        self.assertEqual(blockscope.show("gelu-explorer", x="0.25").attrs, {"x": "0.25"})

    def test_numeric_options(self):
        self.assertEqual(blockscope.show("training-lab", emb_dim=48).attrs, {"emb-dim": "48"})
        with self.assertRaises(blockscope.AttributeValueError):
            blockscope.show("training-lab", emb_dim=50)

    def test_options(self):
        with self.assertRaises(blockscope.AttributeValueError) as e:
            blockscope.show("layernorm-explorer", axis="batch")
        self.assertIn("'features'", str(e.exception))

    def test_lists_of_names(self):
        self.assertEqual(blockscope.show("layernorm-explorer", predict=["mean", "variance"]).attrs,
                         {"predict": "mean, variance"})
        self.assertEqual(blockscope.show("gelu-explorer", controls="none").attrs, {"controls": "none"})
        with self.assertRaises(blockscope.AttributeValueError) as e:
            blockscope.show("gelu-explorer", sections="nothing-like-this")
        self.assertIn("nothing-like-this", str(e.exception))

    def test_a_matrix_becomes_rows(self):
        w = blockscope.show("layernorm-explorer", values=[[1, 3, 5, 7], [10, 20, 30, 40.5]])
        self.assertEqual(w.attrs["values"], "1, 3, 5, 7; 10, 20, 30, 40.5")
        self.assertEqual(blockscope.show("layernorm-explorer", values=(1, 2, 3)).attrs["values"], "1, 2, 3")
        self.assertEqual(blockscope.show("ffn-explorer", demo=[[1, 0], [0, 1]]).attrs["demo"], "1, 0; 0, 1")
        self.assertEqual(blockscope.show("layernorm-explorer", values="1, 2; 3, 4").attrs["values"], "1, 2; 3, 4")

    def test_float32_values_print_shortest(self):
        data = [[f32(0.1), f32(1 / 3)], [f32(-2.5), f32(1e-8)]]
        w = blockscope.show("layernorm-explorer", values=FakeTensor(data))
        self.assertEqual(w.attrs["values"], "0.1, 0.33333334; -2.5, 1e-08")
        for text, value in zip(re.split(r"[;,]\s*", w.attrs["values"]), sum(data, [])):
            self.assertEqual(f32(float(text)), value)  # the widget's Float32Array gets the very values
        # float64 sources keep every digit
        self.assertEqual(blockscope.show("layernorm-explorer", values=FakeTensor([[0.1, 1 / 3]], "float64")).attrs["values"],
                         f"0.1, {1 / 3!r}")

    def test_a_batch_of_one_is_its_sequence(self):
        self.assertEqual(blockscope.show("layernorm-explorer", values=[[[1, 2], [3, 4]]]).attrs["values"], "1, 2; 3, 4")
        with self.assertRaises(blockscope.AttributeValueError) as e:
            blockscope.show("layernorm-explorer", values=[[[1, 2]], [[3, 4]]])
        self.assertIn("shape (2, 1, 2)", str(e.exception))
        self.assertIn("x[0]", str(e.exception))

    def test_row_limits_are_the_widgets(self):
        with self.assertRaises(blockscope.AttributeValueError) as e:
            blockscope.show("layernorm-explorer", values=[[1.0]] * 9)
        self.assertIn("at most 8 tokens", str(e.exception))
        with self.assertRaises(blockscope.AttributeValueError):
            blockscope.show("layernorm-explorer", values=[[1.0] * 25])
        with self.assertRaises(blockscope.AttributeValueError) as e:
            blockscope.show("layernorm-explorer", values=[[1, 2], [3]])
        self.assertIn("ragged", str(e.exception))
        with self.assertRaises(blockscope.AttributeValueError):
            blockscope.show("layernorm-explorer", values=[[1, float("inf")]])
        with self.assertRaises(blockscope.AttributeValueError):
            blockscope.show("layernorm-explorer", values=[["a", "b"]])

    def test_a_vector_of_equal_values_is_one_number(self):
        self.assertEqual(blockscope.show("layernorm-explorer", gamma=FakeTensor([1.5, 1.5, 1.5])).attrs, {"gamma": "1.5"})
        with self.assertRaises(blockscope.AttributeValueError) as e:
            blockscope.show("layernorm-explorer", gamma=[1.0, 2.0])
        self.assertIn("one number for every feature", str(e.exception))

    def test_text_attributes_refuse_tensors(self):
        with self.assertRaises(blockscope.AttributeValueError):
            blockscope.show("gpt-explorer", prompt=[[1, 2]])

    @unittest.skipIf(torch is None, "torch is not installed")
    def test_torch_tensors(self):
        torch.manual_seed(0)
        x = torch.randn(2, 3)
        w = blockscope.show("layernorm-explorer", values=x.unsqueeze(0))
        got = [[float(v) for v in row.split(",")] for row in w.attrs["values"].split(";")]
        self.assertTrue(torch.equal(torch.tensor(got, dtype=torch.float32), x))
        ln = torch.nn.LayerNorm(3)  # weight: a Parameter that requires grad
        with torch.no_grad():
            ln.weight.fill_(0.75)
        self.assertEqual(blockscope.show("layernorm-explorer", gamma=ln.weight, beta=ln.bias).attrs,
                         {"gamma": "0.75", "beta": "0"})
        self.assertEqual(blockscope.show("gelu-explorer", x=torch.tensor(0.5)).attrs, {"x": "0.5"})


class Check(unittest.TestCase):
    def test_a_tensor_is_pasted_as_its_list(self):
        w = blockscope.show("gelu-explorer", check=FakeTensor([0.5, -0.25]))
        self.assertEqual(w.check, "[0.5, -0.25]")
        self.assertEqual(w.attrs, {})

    def test_printed_text_is_pasted_as_it_is(self):
        text = "tensor([[ 1.5410, -0.2934]], grad_fn=<NativeLayerNormBackward0>)"
        self.assertEqual(blockscope.show("layernorm-explorer", check=text).check, text)

    def test_a_dict_of_steps_for_the_block(self):
        w = blockscope.show("block-explorer", preset="encoder-block-lesson82", check={"norm1": [[1.0]], "att": FakeTensor([[2.0]])})
        self.assertEqual(w.check, "{'norm1': [[1.0]], 'att': [[2.0]]}")
        with self.assertRaises(blockscope.AttributeValueError):
            blockscope.show("gelu-explorer", check={"a": [1.0]})

    def test_widgets_without_a_check_box_refuse_check(self):
        with self.assertRaises(blockscope.UnknownAttributeError) as e:
            blockscope.show("residual-flow-explorer", check=[1.0])
        self.assertIn("gelu-explorer", str(e.exception))

    def test_the_check_box_needs_its_preset(self):
        with self.assertRaises(blockscope.AttributeValueError) as e:
            blockscope.show("ffn-explorer", check=[1.0])
        self.assertIn("preset='ffn-lesson82'", str(e.exception))
        self.assertIsNotNone(blockscope.show("ffn-explorer", preset="ffn-lesson82", check=[1.0]).check)

    @unittest.skipIf(torch is None, "torch is not installed")
    def test_a_tensor_with_grad(self):
        x = torch.tensor([[1.0, 3.0]], requires_grad=True)
        self.assertEqual(blockscope.show("layernorm-explorer", check=x * 2).check, "[[2.0, 6.0]]")


class Html(unittest.TestCase):
    def test_attribute_values_are_escaped(self):
        w = blockscope.show("gpt-explorer", prompt='say "<b>" & go', weights="random")
        self.assertIn('prompt="say &quot;&lt;b&gt;&quot; &amp; go"', w.element_html())

    def test_an_output_with_and_without_the_files(self):
        w = blockscope.show("gelu-explorer", check="[1.0] </script><script>alert(1)</script>")
        light = w.html(assets=False)
        heavy = w.html(assets=True)
        self.assertLess(len(light), 4000)
        self.assertGreater(len(heavy), 400_000)
        for out in (light, heavy):
            self.assertEqual(out.count("</script>"), 1)  # the check text cannot end the script
            self.assertIn('<template class="blockscope-widget"><gelu-explorer></gelu-explorer></template>', out)
            self.assertIn("blockscope-note", out)
        self.assertIn("__blockscopeNotebook", heavy)
        self.assertNotIn("reg.run =", light)

    def test_models_travel_with_their_widget(self):
        self.assertEqual(blockscope.show("gelu-explorer").needs, ["runtime"])
        self.assertEqual(blockscope.show("gpt-explorer", model="sort").needs, ["runtime", "models/sort"])
        self.assertEqual(blockscope.show("gpt-explorer").needs, ["runtime", "models/brown"])
        self.assertEqual(blockscope.show("gpt-explorer", weights="random").needs, ["runtime"])
        self.assertEqual(blockscope.show("training-lab").needs, ["runtime", "data/brown"])
        out = blockscope.show("gpt-explorer", model="sort").html(assets=["models/sort"])
        self.assertIn("models/sort/model.safetensors", out)
        self.assertNotIn("dist/blockscope-widgets.js", out)

    def test_a_page_works_alone(self):
        page = blockscope.show("gelu-explorer").page()
        self.assertTrue(page.startswith("<!doctype html>"))
        self.assertIn("dist/blockscope-simd.wasm", page)
        self.assertIn("dist/blockscope-light-simd.wasm", page)
        self.assertIn('<link rel="icon" href="data:,">', page)

    def test_outputs_are_deterministic_but_for_their_id(self):
        w = blockscope.show("gelu-explorer")
        strip = lambda s: re.sub(r"blockscope-[0-9a-f]{12}", "ID", s)  # noqa: E731
        self.assertEqual(strip(w.html()), strip(w.html()))


class Patch(unittest.TestCase):
    def test_the_seams(self):
        text = 'const a=new URL("./x.js",import.meta.url),b=new URL(import.meta.url).origin;new Worker(a,{type:"module"});'
        out = _assets.patch_bundle(text, "dist/blockscope-widgets.js")
        self.assertNotIn("import.meta", out)
        self.assertTrue(out.endswith('const a=new __blockscopeURL("./x.js",__blockscopeBase),'
                                     'b=new __blockscopeURL(__blockscopeBase).origin;new __blockscopeWorker(a,{type:"module"});'))
        self.assertIn('const __blockscopeBase = "blockscope-notebook:/dist/blockscope-widgets.js";', out)

    def test_chunk_imports(self):
        text = ('import{a as b}from"./chunk-kit-AB12.js";import"./chunk-x-CD34.js";export{c}from"./chunk-y-EF56.js";'
                'const g=()=>import("./chunk-gelu-explorer-GH78.js"),t="import(./not-a-specifier)",s="from torch import nn";')
        out = _assets.patch_bundle(text, "dist/chunk-kit-ZZ99.js")
        self.assertIn('import{a as b}from"blockscope-import:/dist/chunk-kit-AB12.js";', out)
        self.assertIn('import"blockscope-import:/dist/chunk-x-CD34.js";', out)
        self.assertIn('export{c}from"blockscope-import:/dist/chunk-y-EF56.js";', out)
        self.assertIn('import(new __blockscopeURL("./chunk-gelu-explorer-GH78.js",__blockscopeBase).href)', out)
        self.assertIn('t="import(./not-a-specifier)",s="from torch import nn";', out)
        self.assertIn('const __blockscopeBase = "blockscope-notebook:/dist/chunk-kit-ZZ99.js";', out)
        # A per-element module one directory down imports its chunk from dist/.
        out = _assets.patch_bundle("export { GeluExplorer } from '../chunk-gelu-explorer-GH78.js';\n", "dist/widgets/gelu-explorer.js")
        self.assertIn('export { GeluExplorer } from "blockscope-import:/dist/chunk-gelu-explorer-GH78.js";', out)

    def test_a_bundle_without_the_seams_is_refused(self):
        with self.assertRaises(blockscope.BlockscopeError):
            _assets.patch_bundle("fetch('x')", "dist/blockscope-worker.js")
        with self.assertRaises(blockscope.BlockscopeError):
            _assets.patch_bundle("new URL('a', import.meta.url); import.meta.resolve('b')", "dist/blockscope-worker.js")
        entry = 'import{a}from"./chunk-a-AA.js";a();'
        chunk = 'export const a=()=>new Worker(new URL("./w.js",import.meta.url));'
        self.assertIn("dist/chunk-a-AA.js", _assets.patch_page({"dist/blockscope-widgets.js": entry, "dist/chunk-a-AA.js": chunk}))
        with self.assertRaisesRegex(blockscope.BlockscopeError, "new Worker"):
            _assets.patch_page({"dist/blockscope-widgets.js": entry, "dist/chunk-a-AA.js": chunk.replace("new Worker", "go")})
        with self.assertRaisesRegex(blockscope.BlockscopeError, "imports dist/chunk-a-AA.js"):
            _assets.patch_page({"dist/blockscope-widgets.js": entry + chunk})

    def test_the_built_bundles_patch(self):
        root = _assets.web_root()
        page = {}
        for path in _files.files_of(root, "runtime"):
            if _assets.is_page_module(path):
                with open(os.path.join(root, *path.split("/")), encoding="utf-8") as f:
                    page[path] = f.read()
        self.assertIn("dist/blockscope-widgets.js", page)
        self.assertGreater(len([p for p in page if p.startswith("dist/chunk-")]), 7)
        self.assertEqual(len([p for p in page if p.startswith("dist/widgets/")]), 8)
        patched = _assets.patch_page(page)
        with open(os.path.join(root, "dist", "blockscope-worker.js"), encoding="utf-8") as f:
            patched["dist/blockscope-worker.js"] = _assets.patch_bundle(f.read(), "dist/blockscope-worker.js")
        for path, out in patched.items():
            self.assertNotIn("import.meta", out, path)
            self.assertNotRegex(out, r"""(from|import)\s*["']\.""", path)  # no relative import is left
        self.assertTrue(any("new __blockscopeURL(" in out and "new __blockscopeWorker(" in out for out in patched.values()))


class FakeEvents:
    def __init__(self):
        self.callbacks = []

    def register(self, name, fn):
        assert name == "pre_run_cell"
        self.callbacks.append(fn)


class FakeInfo:
    def __init__(self, cell_id, raw_cell=""):
        self.cell_id = cell_id
        self.raw_cell = raw_cell


class FakeShell:
    """Enough of an IPython kernel shell for the session: events and the running cell's id."""

    def __init__(self):
        self.events = FakeEvents()
        self.parent_header = {"metadata": {"cellId": "c1"}}

    def run_cell(self, cell_id, source=""):
        self.parent_header = {"metadata": {"cellId": cell_id}}
        for fn in self.events.callbacks:
            fn(FakeInfo(cell_id, source))


class Carriers(unittest.TestCase):
    def setUp(self):
        self.shell = FakeShell()
        self.saved = (_session._ipython, _session.SESSION)
        _session._ipython = lambda: self.shell
        self.session = _session.Session()

    def tearDown(self):
        _session._ipython, _session.SESSION = self.saved

    def carry(self, needed=("runtime",)):
        return self.session.groups_to_carry(list(needed))

    def test_outside_ipython_every_output_carries_its_files(self):
        _session._ipython = lambda: None
        self.assertEqual(self.carry(), ["runtime"])
        self.assertEqual(self.carry(), ["runtime"])

    def test_the_first_output_carries_and_later_ones_do_not(self):
        self.assertEqual(self.carry(), ["runtime"])
        self.assertEqual(self.carry(), [])  # a second widget in the same cell
        self.shell.run_cell("c2")
        self.assertEqual(self.carry(), [])
        self.assertEqual(self.carry(["runtime", "models/sort"]), ["models/sort"])  # a model: the first that needs it

    def test_running_the_carrier_cell_again_carries_again(self):
        self.assertEqual(self.carry(), ["runtime"])  # in cell c1
        self.shell.run_cell("c2")
        self.assertEqual(self.carry(), [])
        self.shell.run_cell("c1")  # c1's output is being replaced
        self.assertEqual(self.carry(), ["runtime"])
        self.shell.run_cell("c2")
        self.assertEqual(self.carry(), [])

    def test_the_carrier_cell_run_again_without_a_widget_hands_over(self):
        self.carry()
        self.shell.run_cell("c1")  # now shows nothing
        self.shell.run_cell("c3")
        self.assertEqual(self.carry(), ["runtime"])

    def test_cells_without_ids_are_told_apart_by_source(self):
        self.shell.parent_header = {}
        self.shell.history_manager = type("H", (), {"input_hist_raw": ["", "blockscope.show('gelu-explorer')"]})()
        self.assertEqual(self.carry(), ["runtime"])
        for fn in self.shell.events.callbacks:
            fn(FakeInfo(None, "print(1)"))
        self.assertEqual(self.carry(), [])
        for fn in self.shell.events.callbacks:
            fn(FakeInfo(None, "blockscope.show('gelu-explorer')"))
        self.assertEqual(self.carry(), ["runtime"])

    def test_every_and_reset(self):
        self.assertEqual(self.carry(), ["runtime"])
        self.session.reset()
        self.assertEqual(self.carry(), ["runtime"])
        self.session.configure("every")
        self.assertEqual(self.carry(), ["runtime"])
        self.assertEqual(self.carry(), ["runtime"])
        with self.assertRaises(ValueError):
            self.session.configure("twice")

    def test_repr_html_asks_the_session(self):
        _session.SESSION = self.session
        from blockscope import _widget  # noqa: PLC0415

        saved = _widget.SESSION
        _widget.SESSION = self.session
        try:
            w = blockscope.show("gelu-explorer")
            self.assertIn("dist/blockscope-widgets.js", w._repr_html_())
            self.assertNotIn("dist/blockscope-widgets.js", w._repr_html_())
        finally:
            _widget.SESSION = saved


class Metadata(unittest.TestCase):
    def test_attributes_json_is_generated(self):
        data = _spec.specs()
        self.assertIn("do not edit", data["generated"])
        self.assertEqual(data["widgets"]["layernorm-explorer"]["rows"]["values"], {"row": "token", "maxRows": 8, "maxColumns": 24})
        self.assertEqual(blockscope.__version__, data["version"])
        self.assertEqual(json.loads(json.dumps(data)), data)


if __name__ == "__main__":
    unittest.main()
