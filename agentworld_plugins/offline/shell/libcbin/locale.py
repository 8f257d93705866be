"""locale: glibc's, on a machine whose only locales are C, C.utf8 and POSIX."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..locales import CATEGORIES, INSTALLED, charmap, environment, is_installed, selected
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc

_LONG = {
    "--all-locales": "a",
    "--charmaps": "m",
    "--category-name": "c",
    "--keyword-name": "k",
    "--verbose": "v",
}
#: the keywords glibc's locale knows (the categories' items); only LC_NUMERIC's and charmap are
#: modelled, the others are noted as not simulated
_KEYWORD_NAMES = """
ctype-class-names ctype-map-names ctype-width ctype-mb-cur-max charmap ctype-class-offset
ctype-map-offset ctype-indigits_mb-len ctype-indigits0_mb ctype-indigits1_mb ctype-indigits2_mb
ctype-indigits3_mb ctype-indigits4_mb ctype-indigits5_mb ctype-indigits6_mb ctype-indigits7_mb
ctype-indigits8_mb ctype-indigits9_mb ctype-indigits_wc-len ctype-outdigit0_mb ctype-outdigit1_mb
ctype-outdigit2_mb ctype-outdigit3_mb ctype-outdigit4_mb ctype-outdigit5_mb ctype-outdigit6_mb
ctype-outdigit7_mb ctype-outdigit8_mb ctype-outdigit9_mb ctype-outdigit0_wc ctype-outdigit1_wc
ctype-outdigit2_wc ctype-outdigit3_wc ctype-outdigit4_wc ctype-outdigit5_wc ctype-outdigit6_wc
ctype-outdigit7_wc ctype-outdigit8_wc ctype-outdigit9_wc ctype-translit-tab-size
ctype-translit-default-missing-len ctype-translit-ignore-len ctype-translit-ignore map-to-nonascii
nonascii-case decimal_point thousands_sep grouping numeric-decimal-point-wc numeric-thousands-sep-wc
numeric-codeset abday day abmon mon am_pm d_t_fmt d_fmt t_fmt t_fmt_ampm era era_year era_d_fmt
alt_digits era_d_t_fmt era_t_fmt time-era-num-entries time-era-entries week-ndays week-1stday
week-1stweek first_weekday first_workday cal_direction timezone date_fmt time-codeset alt_mon
ab_alt_mon collate-nrules collate-rulesets collate-symb-hash-sizemb collate-codeset int_curr_symbol
currency_symbol mon_decimal_point mon_thousands_sep mon_grouping positive_sign negative_sign
int_frac_digits frac_digits p_cs_precedes p_sep_by_space n_cs_precedes n_sep_by_space p_sign_posn
n_sign_posn crncystr int_p_cs_precedes int_p_sep_by_space int_n_cs_precedes int_n_sep_by_space
int_p_sign_posn int_n_sign_posn duo_int_curr_symbol duo_currency_symbol duo_int_frac_digits
duo_frac_digits duo_p_cs_precedes duo_p_sep_by_space duo_n_cs_precedes duo_n_sep_by_space
duo_int_p_cs_precedes duo_int_p_sep_by_space duo_int_n_cs_precedes duo_int_n_sep_by_space
duo_p_sign_posn duo_n_sign_posn duo_int_p_sign_posn duo_int_n_sign_posn uno_valid_from uno_valid_to
duo_valid_from duo_valid_to conversion_rate monetary-decimal-point-wc monetary-thousands-sep-wc
monetary-codeset yesexpr noexpr yesstr nostr messages-codeset height width paper-codeset name_fmt
name_gen name_mr name_mrs name_miss name_ms name-codeset postal_fmt country_name country_post
country_ab2 country_ab3 country_car country_num country_isbn lang_name lang_ab lang_term lang_lib
address-codeset tel_int_fmt tel_dom_fmt int_select int_prefix telephone-codeset measurement
measurement-codeset title source address contact email tel fax language territory audience
application abbreviation revision date category identification-codeset
"""
KEYWORDS = frozenset(_KEYWORD_NAMES.split())
_TRY = "Try `locale --help' or `locale --usage' for more information.\n"


def _numeric(env: dict[str, str]) -> list[tuple[str, str, bool]]:
    """LC_NUMERIC's keywords (name, value, whether the value is a string) in glibc's order."""
    return [
        ("decimal_point", ".", True),
        ("thousands_sep", "", True),
        ("grouping", "-1", False),
        ("numeric-decimal-point-wc", "46", False),
        ("numeric-thousands-sep-wc", "0", False),
        ("numeric-codeset", charmap(env, "LC_NUMERIC"), True),
    ]


def _cannot(p: _Proc, env: dict[str, str], category: str) -> None:
    """glibc's warning where setlocale(category, "") fails: the locale is not installed."""
    fails = (
        any(not is_installed(selected(env, c)) for c in CATEGORIES)
        if category == "LC_ALL"
        else not is_installed(selected(env, category))
    )
    if fails:
        p.err(f"Cannot set {category} to default locale: No such file or directory")


@applet("locale")
def _u_locale(p: _Proc) -> int:
    env = environment(p.vm)
    flags: set[str] = set()
    names: list[str] = []
    _cannot(p, env, "LC_CTYPE")
    _cannot(p, env, "LC_MESSAGES")
    for i, a in enumerate(p.args):
        if a == "--":
            names.extend(p.args[i + 1 :])
            break
        if a in _LONG:
            flags.add(_LONG[a])
        elif a in ("--help", "--usage", "-?", "-V", "--version"):
            return p.not_simulated()
        elif a.startswith("--"):
            p.err(f"unrecognized option '{a}'")
            p.ctx.err.write(_TRY)
            return 64
        elif a.startswith("-") and len(a) > 1:
            for c in a[1:]:
                if c not in "amckv":
                    p.err(f"invalid option -- '{c}'")
                    p.ctx.err.write(_TRY)
                    return 64
                flags.add(c)
        else:
            names.append(a)
    if "a" in flags:
        _cannot(p, env, "LC_COLLATE")
        if "v" in flags:
            return p.not_simulated()
        p.out("".join(name + "\n" for name in INSTALLED))
        return 0
    if "m" in flags:
        p.unknown()  # the charmaps of /usr/share/i18n (none in the base image)
        return 0
    _cannot(p, env, "LC_ALL")
    if not names and not flags & {"c", "k"}:
        lc_all, lang = env.get("LC_ALL", ""), env.get("LANG", "")
        lines = [f"LANG={lang}", f"LANGUAGE={env.get('LANGUAGE', '')}"]
        for category in CATEGORIES:
            if lc_all or category not in env:
                lines.append(f'{category}="{lc_all or lang or "POSIX"}"')
            else:
                lines.append(f"{category}={env[category]}")
        lines.append(f"LC_ALL={lc_all}")
        p.out("".join(line + "\n" for line in lines))
        return 0
    return _show(p, env, names, "k" in flags, "c" in flags)


def _show(p: _Proc, env: dict[str, str], names: list[str], keywords: bool, categories: bool) -> int:
    """``locale NAME...``: categories (their keywords) and keywords, by value or ``-k`` name=value."""
    status = 0
    numeric = _numeric(env)
    known = {name: ("LC_NUMERIC", name, value, text) for name, value, text in numeric}
    known["charmap"] = ("LC_CTYPE", "charmap", charmap(env), True)
    out: list[str] = []
    for name in names:
        if name == "LC_NUMERIC":
            items = [("LC_NUMERIC", *item) for item in numeric]
        elif name in known:
            items = [known[name]]
        elif name in CATEGORIES or name in KEYWORDS:
            p.unknown()  # another category or a keyword this machine does not model
            continue
        else:
            p.err(f'unknown name "{name}"')
            status = 1
            continue
        if categories:
            out.append(items[0][0])
        for _, key, value, text in items:
            shown = f'"{value}"' if text else value
            out.append(f"{key}={shown}" if keywords else value)
    p.out("".join(line + "\n" for line in out))
    return status
