"""The warm-up's scan: a short transcript of the server's own, read as a document is read.

The first scan of a process pays for what every later one finds made: the regular expressions
that the scanner builds from the enabled dialects' markers (the line events, the fence bodies'
first lines, the marker lines: 8 patterns, 7-15 ms on the way to a 4 MB history's first
diagnostics), and each reader's first call. ``server.warm_up`` scans :data:`SAMPLE` with the
server's dialects once ``initialize`` is answered, while the client prepares its first
``didOpen``; the patterns compiled there are kept between starts (``codecache.keeping``: they
come from the dialects, never from a document), so that a client that sends its document at
once (the warm-up then skips this scan) finds them made too. Nothing of the sample is kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import codecache
from ..document import IncrementalDocument

if TYPE_CHECKING:
    from .server import ActionLanguageServer

# An Aider history's turn (a user line, a file name, a SEARCH/REPLACE block in a fence, the
# report), a fenced diff and a tag call: the shapes the first slice of a long history holds.
SAMPLE = """\
# aider chat started at 2024-05-01 10:00:00

#### make greet say hello

greet.py
```python
<<<<<<< SEARCH
def greet():
    return "hi"
=======
def greet():
    return "hello"
>>>>>>> REPLACE
```

> Applied edit to greet.py

#### and add a test

```diff
--- a/test_greet.py
+++ b/test_greet.py
@@ -0,0 +1,2 @@
+def test_greet():
+    assert greet() == "hello"
```

<write_to_file>
<path>notes.md</path>
<content>
Greeting changed.
</content>
</write_to_file>
"""


def scan_sample(ls: ActionLanguageServer) -> None:
    """Read :data:`SAMPLE` as a large document is opened (``Diagnostics.open_in_steps``: scanned
    and checked, then analysed), with the server's dialects and roots; keep the patterns."""
    with codecache.keeping():
        doc = IncrementalDocument(SAMPLE, ls.settings.dialect_set(), ls.roots(), defer=True)
        doc.scan_some(len(SAMPLE))
        doc.analysis()
