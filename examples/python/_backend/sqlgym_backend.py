"""The build backend of the sqlgym package (PEP 517, PEP 660), in the tree.

The package is pure Python with no dependencies, so building it is copying
its files into a wheel (a zip file with a .dist-info folder). Doing that
here, with the standard library only, means ``pip install`` needs nothing
beyond pip itself: no setuptools, no wheel package, no package index,
with or without ``--no-build-isolation``, on any Python 3.9 or newer
(setuptools 65 without the wheel package cannot build a wheel at all).

What goes in comes from pyproject.toml: ``[project]`` gives the name,
version, description and Python requirement; ``[tool.sqlgym-backend]``
the packages (folders) and single-file modules to ship.
"""

import base64
import hashlib
import io
import json
import os
import re
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The zip timestamp of every file, so that a wheel's bytes depend on its
# contents only (1980-01-01, the earliest a zip file can hold).
EPOCH = (1980, 1, 1, 0, 0, 0)


def _config():
    """Reads the few pyproject.toml values the build needs.

    tomllib exists from Python 3.11 only; the file's values are plain
    ``key = "string"`` and ``key = ["string", ...]`` (on one line or
    several), whose right sides read as JSON once a trailing comma is
    dropped, so they are read that way on every version (comments only on
    lines of their own).
    """
    sections, section, pending = {}, None, None
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("#"):
                continue
            if pending is not None:
                pending[1].append(line)
                if line.endswith("]"):
                    section[pending[0]] = _json(" ".join(pending[1]))
                    pending = None
                continue
            head = re.fullmatch(r"\[([A-Za-z0-9_.-]+)\]", line)
            if head:
                section = sections.setdefault(head.group(1), {})
                continue
            pair = re.fullmatch(r'([A-Za-z0-9_-]+)\s*=\s*(".*"|\[.*)', line)
            if section is None or not pair:
                continue
            key, value = pair.groups()
            if value.startswith("[") and not value.endswith("]"):
                pending = (key, [value])
            else:
                section[key] = _json(value)
    project, files = sections.get("project", {}), sections.get("tool.sqlgym-backend", {})
    for key in ("name", "version"):
        if not project.get(key):
            raise ValueError("pyproject.toml: [project] needs %s" % key)
    return project, files.get("packages", []), files.get("modules", [])


def _json(text):
    return json.loads(re.sub(r",\s*\]$", "]", text))


def _sources(packages, modules):
    """The (path in the wheel, path on disk) of every file to ship."""
    out = []
    for pkg in packages:
        folder = os.path.join(ROOT, pkg)
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py"):
                out.append((pkg + "/" + name, os.path.join(folder, name)))
    for mod in modules:
        out.append((mod + ".py", os.path.join(ROOT, mod + ".py")))
    return out


def _metadata(project):
    lines = ["Metadata-Version: 2.1", "Name: " + project["name"], "Version: " + project["version"]]
    if project.get("description"):
        lines.append("Summary: " + project["description"])
    if project.get("requires-python"):
        lines.append("Requires-Python: " + project["requires-python"])
    for c in project.get("classifiers", []):
        lines.append("Classifier: " + c)
    for d in project.get("dependencies", []):
        lines.append("Requires-Dist: " + d)
    body = ""
    readme = project.get("readme")
    if readme:
        lines.append("Description-Content-Type: text/markdown")
        with open(os.path.join(ROOT, readme), encoding="utf-8") as f:
            body = "\n" + f.read()
    return "\n".join(lines) + "\n" + body


def _dist(project):
    return re.sub(r"[^A-Za-z0-9.]+", "_", project["name"]) + "-" + project["version"]


def _write_wheel(directory, project, files):
    """Writes a wheel of files ((arcname, bytes) pairs) and returns its name."""
    dist = _dist(project)
    info = dist + ".dist-info/"
    files = list(files) + [
        (info + "METADATA", _metadata(project).encode("utf-8")),
        (info + "WHEEL", b"Wheel-Version: 1.0\nGenerator: sqlgym_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
    ]
    record = []
    name = dist + "-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(directory, name), "w", zipfile.ZIP_DEFLATED) as whl:
        for arc, data in files:
            whl.writestr(zipfile.ZipInfo(arc, EPOCH), data, zipfile.ZIP_DEFLATED)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append("%s,sha256=%s,%d" % (arc, digest, len(data)))
        record.append(info + "RECORD,,")
        whl.writestr(zipfile.ZipInfo(info + "RECORD", EPOCH), "\n".join(record) + "\n", zipfile.ZIP_DEFLATED)
    return name


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 517: the wheel of the package's files."""
    project, packages, modules = _config()
    files = [(arc, _read(path)) for arc, path in _sources(packages, modules)]
    return _write_wheel(wheel_directory, project, files)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 660: a wheel whose .pth file puts the source folder on sys.path."""
    project, _, _ = _config()
    pth = (re.sub(r"[^A-Za-z0-9]+", "_", project["name"]) + ".pth", (ROOT + "\n").encode("utf-8"))
    return _write_wheel(wheel_directory, project, [pth])


def build_sdist(sdist_directory, config_settings=None):
    """PEP 517: a source archive that builds with this backend again."""
    project, packages, modules = _config()
    dist = _dist(project)
    extra = ["pyproject.toml", "_backend/sqlgym_backend.py"] + ([project["readme"]] if project.get("readme") else [])
    entries = [(p, os.path.join(ROOT, p)) for p in extra] + _sources(packages, modules)
    name = dist + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        pkg_info = _metadata(project).encode("utf-8")
        for arc, data in [("PKG-INFO", pkg_info)] + [(a, _read(p)) for a, p in entries]:
            member = tarfile.TarInfo(dist + "/" + arc)
            member.size, member.mode, member.mtime = len(data), 0o644, 0
            tar.addfile(member, io.BytesIO(data))
    return name


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []
