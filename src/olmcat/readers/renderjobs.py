"""Render many bundle sources at once, in worker processes (``olmcat render`` of many images).

One bundle's pull, unpack and YAML parse use one core; a run over tens of multi-MB bundle images
spends most of its wall in them, one image after another. Here each source is one job of
:func:`olmcat.readers.parallel.map_in_order`: the workers die with the parent, a few jobs per
worker are in flight (one rendered bundle each, never the whole set of images at once) and the
results come back in source order, so the output and its notices are those of a serial run.

What the serial run reads from its context is handed to the job explicitly: the registry options
(the command's ``--authfile``, ``--use-http``, cache directory, ...); the Go 1.22 escaping
follows the release, as in :func:`olmcat.readers.bundlerender.render_bundles`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from olmcat.errors import OlmcatError
from olmcat.go.opm import OpmRelease
from olmcat.model import Bundle
from olmcat.notices import Notice, NoticeSink
from olmcat.oci.options import RegistryOptions


class RenderSource(Protocol):
    """:func:`olmcat.readers.bundlerender.render_source`'s signature."""

    def __call__(
        self,
        source: str | Path,
        *,
        image: str | None = None,
        image_ref_template: str | None = None,
        platform: str | None = None,
        notify: NoticeSink = ...,
        release: OpmRelease | None = None,
    ) -> Bundle: ...


@dataclass(frozen=True, slots=True)
class RenderJob:
    """One source of ``render_bundles`` and everything its rendering depends on."""

    source: str | Path
    image: str | None
    image_ref_template: str | None
    platform: str | None
    release: OpmRelease
    options: RegistryOptions


def render_job(
    render_source: RenderSource, job: RenderJob
) -> tuple[Bundle | None, list[Notice], OlmcatError | None]:
    """Render one source with ``render_source`` (a module-level function, so that a worker
    can be handed it), its notices kept in order for the parent to pass on -- also those sent
    before the source was refused, which the error follows, as in one process."""
    from olmcat.go.json import before_go_122
    from olmcat.oci.options import use_options

    notices: list[Notice] = []
    old_go = not job.release.has("encoding-go122-json")  # as render_bundles escapes
    try:
        with use_options(job.options), before_go_122(old_go):
            bundle = render_source(
                job.source,
                image=job.image,
                image_ref_template=job.image_ref_template,
                platform=job.platform,
                notify=notices.append,
                release=job.release,
            )
    except OlmcatError as error:
        return None, notices, error
    return bundle, notices, None


def render_sources(
    render_source: RenderSource,
    sources: Sequence[str | Path],
    *,
    image: str | None,
    image_ref_template: str | None,
    platform: str | None,
    notify: NoticeSink,
    release: OpmRelease,
) -> list[Bundle]:
    """``render_source`` of every source (:func:`olmcat.readers.bundlerender.render_source`,
    passed in: that module calls this one), in source order: in worker processes when there
    are several sources and more than one worker (``OLMCAT_WORKERS``), else in this process."""
    import functools

    from olmcat.oci.options import current_options
    from olmcat.readers.parallel import map_in_order, worker_count

    options = current_options()
    jobs = [
        RenderJob(source, image, image_ref_template, platform, release, options)
        for source in sources
    ]
    workers = worker_count(len(jobs))
    if workers < 2:
        return [render_job_here(render_source, job, notify) for job in jobs]
    bundles = []
    work = functools.partial(render_job, render_source)
    for bundle, notices, error in map_in_order(work, jobs, workers, share=True):
        for notice in notices:
            notify(notice)
        if error is not None:
            raise error
        assert bundle is not None
        bundles.append(bundle)
    return bundles


def render_job_here(render_source: RenderSource, job: RenderJob, notify: NoticeSink) -> Bundle:
    """One job in this process, its notices sent as they come."""
    from olmcat.oci.options import use_options

    with use_options(job.options):
        return render_source(
            job.source,
            image=job.image,
            image_ref_template=job.image_ref_template,
            platform=job.platform,
            notify=notify,
            release=job.release,
        )
