"""Pictures: upgrade graphs as SVG, and self-contained HTML reports of ``render-graph``, ``diff``
and ``upgrade-check``.

:mod:`olmcat.pictures.lanes` lays out and draws one package's channels,
:mod:`olmcat.pictures.page` is the HTML page around them (stylesheet, script, CSP),
:mod:`olmcat.pictures.text` makes catalog text safe. The reports: :func:`graph_svg`,
:func:`graph_html`, :func:`diff_html`, :func:`upgrade_html`; each returns the text.
"""
