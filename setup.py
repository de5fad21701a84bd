"""Package discovery for setuptools (the rest of the metadata is in pyproject.toml).

The shipped networks live in the project's top-level ``checkpoints/`` folder, where the
README, the scripts and the training docs point. A wheel must carry them too, or ``pip
install .`` would lose ``best``, its pruner and the opponent ladder. pyproject.toml maps that
folder to the package ``bgai.checkpoints`` (``package-dir``) and lists its files
(``package-data``), so a wheel installs them as ``bgai/checkpoints/`` and an sdist includes
them; :data:`bgai.model.checkpoint.SHIPPED` looks there first. Only the package list needs
this file: pyproject's ``packages.find`` cannot name a package that is not a folder of that
name, and a mapped package has to be listed.
"""

from setuptools import find_namespace_packages, setup

setup(packages=[*find_namespace_packages(include=["bgai", "bgai.*"]), "bgai.checkpoints"])
