"""scikit-learn's own tests of Lasso, LogisticRegression and LinearSVC, run against ours.

At test time (never vendored) this copies, from the installed scikit-learn (Debian's
python3-sklearn), the test modules that exercise the three estimators into OUT_DIR, keeping only
the test functions that name Lasso, LogisticRegression or LinearSVC, and rewrites them:

- the three names (also as ``svm.LinearSVC``, ``linear_model.Lasso``, ...) are bound to strads'
  classes, imported after the module's own imports;
- the solver-choice arguments (``solver=``, ``selection=``) are dropped from calls of them: the
  engine has its one solver.

Everything else (helpers, data, scikit-learn's other estimators the tests compare with) is kept
as it is. It then runs pytest on the copy with conftest.py beside this file, which applies the
explicit list of expected failures and skips (expectations.py). Usage:

    python3 run_sklearn_tests.py OUT_DIR [pytest arguments...]

Exit status: pytest's (non-zero if any test fails, or a listed xfail passes); 2 if scikit-learn
or pytest is missing (a test whose tool is absent fails, it is never skipped).
"""
import ast
import os
import shutil
import sys

OUR_NAMES = ("Lasso", "LogisticRegression", "LinearSVC")
SOLVER_ARGUMENTS = {"solver", "selection"}
MODULES = (
    "linear_model/tests/test_coordinate_descent.py",
    "linear_model/tests/test_sparse_coordinate_descent.py",
    "linear_model/tests/test_logistic.py",
    "svm/tests/test_svm.py",
)


class _SwapClasses(ast.NodeTransformer):
    """``module.Lasso`` -> ``Lasso``; calls of our names lose their solver-choice keywords."""

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr in OUR_NAMES and isinstance(node.value, ast.Name):
            return ast.copy_location(ast.Name(id=node.attr, ctx=node.ctx), node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id in OUR_NAMES:
            node.keywords = [k for k in node.keywords if k.arg not in SOLVER_ARGUMENTS]
        return node


def _names_ours(node):
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id in OUR_NAMES:
            return True
        if isinstance(sub, ast.Attribute) and sub.attr in OUR_NAMES:
            return True
    return False


def _body_names_ours(func):
    return any(_names_ours(statement) for statement in func.body)


def rewrite(source):
    """The module's text with only the tests naming our classes, bound to strads'. Tests that
    name them only in their parametrisation are marked ``strads_params``: conftest.py keeps only
    those of their instances whose parameters hold one of our classes."""
    tree = ast.parse(source)
    body, last_import = [], -1
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                statement.name.startswith("test"):
            if not _names_ours(statement):
                continue
            if not _body_names_ours(statement):
                marker = ast.parse("pytest.mark.strads_params").body[0].value
                statement.decorator_list.append(marker)
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            last_import = len(body)
        body.append(statement)
    swap = ast.parse("import pytest\nfrom strads import " + ", ".join(OUR_NAMES)).body
    tree.body = body[:last_import + 1] + swap + body[last_import + 1:]
    tree = ast.fix_missing_locations(_SwapClasses().visit(tree))
    header = ("# Copied at test time from the installed scikit-learn by "
              "python/tests/sklearn_upstream/run_sklearn_tests.py:\n# its tests of "
              + ", ".join(OUR_NAMES) + " against strads' classes. Do not edit.\n")
    return header + ast.unparse(tree) + "\n"


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        import pytest
        import sklearn
    except ImportError as e:
        print(f"scikit-learn's tests need python3-sklearn and python3-pytest "
              f"(deploy/install-deps.sh): {e}", file=sys.stderr)
        return 2
    out_dir, here = argv[1], os.path.dirname(os.path.abspath(__file__))
    sklearn_dir = os.path.dirname(sklearn.__file__)
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    for name in ("conftest.py", "expectations.py"):
        shutil.copy(os.path.join(here, name), out_dir)
    for module in MODULES:
        path = os.path.join(sklearn_dir, module)
        if not os.path.exists(path):
            print(f"{path} is missing: the installed scikit-learn has no tests "
                  f"(Debian's python3-sklearn has them)", file=sys.stderr)
            return 2
        with open(path, encoding="utf-8") as f:
            text = rewrite(f.read())
        with open(os.path.join(out_dir, os.path.basename(module)), "w", encoding="utf-8") as f:
            f.write(text)
    print(f"scikit-learn {sklearn.__version__} from {sklearn_dir}", flush=True)
    return int(pytest.main(["-p", "no:cacheprovider", "--rootdir", out_dir, out_dir,
                            *argv[2:]]))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
