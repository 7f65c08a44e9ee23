import LecternRender
let md = """
# Lesson $x^2$

Hello *world* with $a_1 * b_2$ and `code $x$` and [link](javascript:alert(1)).

$$
E = mc^2
$$

Text before $$\\int_0^1 f$$ and after.

> quote with \\(y\\)

```swift
let x = "$y$"
```

```math
\\frac{1}{2}
```

| a | b |
|:--|--:|
| $|x|$ | 2 |

- tight $m$
- item

<script>alert(1)</script>

![img $q$](data:image/png;base64,xx)
"""
let r = try MarkdownRenderer().render(md, language: "ar", title: nil)
print(r.xhtml)
print(r.warnings)
