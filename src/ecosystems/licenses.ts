/**
 * Licenses as packages declare them in their installed metadata, as SPDX expressions, or none: envproof never
 * guesses one. A field that is an SPDX expression already (PEP 639 `License-Expression`, npm's `license`) is taken
 * when it reads as one; a Python trove classifier or a free-text `License` field only when it names one of the
 * licenses below exactly. A license file (Go modules) is identified only for MIT, Apache-2.0, BSD-3-Clause and ISC,
 * by sentences of their texts, and only when it matches exactly one of them.
 */

/** Trove classifiers that name exactly one SPDX license. */
const CLASSIFIERS: Record<string, string> = {
  'License :: OSI Approved :: MIT License': 'MIT',
  'License :: OSI Approved :: MIT No Attribution License (MIT-0)': 'MIT-0',
  'License :: OSI Approved :: Apache Software License': 'Apache-2.0',
  'License :: OSI Approved :: ISC License (ISCL)': 'ISC',
  'License :: OSI Approved :: Mozilla Public License 2.0 (MPL 2.0)': 'MPL-2.0',
  'License :: OSI Approved :: Python Software Foundation License': 'PSF-2.0',
  'License :: OSI Approved :: The Unlicense (Unlicense)': 'Unlicense',
  'License :: OSI Approved :: zlib/libpng License': 'Zlib',
  'License :: OSI Approved :: GNU General Public License v2 (GPLv2)': 'GPL-2.0-only',
  'License :: OSI Approved :: GNU General Public License v3 (GPLv3)': 'GPL-3.0-only',
  'License :: OSI Approved :: GNU Lesser General Public License v3 (LGPLv3)': 'LGPL-3.0-only',
  'License :: CC0 1.0 Universal (CC0 1.0) Public Domain Dedication': 'CC0-1.0',
};

/** Free-text `License` values that are exactly a license's SPDX id (compared case-insensitively). */
const KNOWN_IDS = ['MIT', 'MIT-0', 'Apache-2.0', 'BSD-2-Clause', 'BSD-3-Clause', 'ISC', 'MPL-2.0', 'PSF-2.0', 'Unlicense', 'Zlib', 'CC0-1.0', '0BSD', 'LGPL-3.0-only', 'GPL-3.0-only', 'GPL-2.0-only'];

const ID = '[A-Za-z0-9.-]+\\+?(?: WITH [A-Za-z0-9.-]+)?';
const EXPRESSION = new RegExp(`^\\(*${ID}\\)*(?: (?:AND|OR) \\(*${ID}\\)*)*$`);

/** The text when it reads as an SPDX license expression (`MIT`, `(MIT OR Apache-2.0)`), else undefined. */
export function spdxExpression(text: string | undefined): string | undefined {
  const t = text?.trim();
  if (!t || /^(UNLICENSED|NOASSERTION|NONE)$/i.test(t) || /^SEE LICEN[CS]E IN /i.test(t)) return undefined;
  const opened = (t.match(/\(/g) ?? []).length;
  return EXPRESSION.test(t) && opened === (t.match(/\)/g) ?? []).length ? t : undefined;
}

/**
 * A Python distribution's license from its metadata: License-Expression, else its license classifiers when each
 * names one license, else (no license classifier) a `License` field that is exactly an id.
 */
export function pythonLicense(metadata: { license_expression?: string; license?: string; classifier?: string[] }): string | undefined {
  const expression = spdxExpression(metadata.license_expression);
  if (expression) return expression;
  // Several license classifiers offer a choice; one that names no single license (`BSD License`) leaves it unknown.
  const classifiers = (metadata.classifier ?? []).filter((c) => c.startsWith('License :: '));
  const ids = [...new Set(classifiers.map((c) => CLASSIFIERS[c]))];
  if (classifiers.length && !ids.includes(undefined)) return ids.length > 1 ? `(${ids.join(' OR ')})` : ids[0];
  if (classifiers.length) return undefined;
  const text = metadata.license?.trim().toLowerCase();
  return KNOWN_IDS.find((id) => id.toLowerCase() === text);
}

/** Sentences of each license's text (whitespace and case aside) that a copy of it always contains. */
const LICENSE_TEXTS: [string, string[]][] = [
  ['MIT', ['permission is hereby granted, free of charge, to any person obtaining a copy', 'the above copyright notice and this permission notice shall be included in all copies or substantial portions of the software']],
  ['Apache-2.0', ['apache license', 'version 2.0, january 2004', 'terms and conditions for use, reproduction, and distribution']],
  ['BSD-3-Clause', ['redistribution and use in source and binary forms, with or without modification, are permitted provided that the following conditions are met', 'redistributions of source code must retain the above copyright notice', 'redistributions in binary form must reproduce the above copyright notice', 'may be used to endorse or promote products derived from this software without specific prior written permission']],
  // ISC's condition is what 0BSD leaves out.
  ['ISC', ['permission to use, copy, modify, and/or distribute this software for any purpose with or without fee is hereby granted, provided that the above copyright notice and this permission notice appear in all copies', 'the software is provided "as is" and the author disclaims all warranties']],
];

/** The SPDX id of a license file's text when it is exactly one of the licenses above, else undefined. */
export function licenseOfText(text: string): string | undefined {
  const normal = text.toLowerCase().replace(/[\s*#>]+/g, ' ');
  const matches = LICENSE_TEXTS.filter(([, sentences]) => sentences.every((s) => normal.includes(s)));
  return matches.length === 1 ? matches[0]![0] : undefined;
}

/** A license as a Maven POM's `<license>` names it, with the SPDX id it was recognised as, if any. */
export interface NamedLicense {
  name: string;
  url?: string;
  id?: string;
}

/** `<license><name>` values (lower case, punctuation and ` - ` collapsed to spaces) that name one SPDX license. */
const MAVEN_NAMES: [RegExp, string][] = [
  [/^(the )?apache( software)? licen[cs]e( version| v)? ?2(\.0)?$|^apache[- ]2(\.0)?$|^asl 2\.0$/, 'Apache-2.0'],
  [/^(the )?mit( licen[cs]e)?$/, 'MIT'],
  [/^(the )?eclipse public licen[cs]e( version| v)? ?1\.0$|^epl[- ]1\.0$/, 'EPL-1.0'],
  [/^(the )?eclipse public licen[cs]e( version| v)? ?2\.0$|^epl[- ]2\.0$/, 'EPL-2.0'],
  [/^(the )?(new |revised |modified )?bsd[- ]3[- ]clause( licen[cs]e)?$|^(the )?(new|revised|modified) bsd licen[cs]e$|^(the )?3[- ]clause bsd licen[cs]e$/, 'BSD-3-Clause'],
  [/^(the )?(simplified )?bsd[- ]2[- ]clause( licen[cs]e)?$|^(the )?simplified bsd licen[cs]e$|^(the )?2[- ]clause bsd licen[cs]e$/, 'BSD-2-Clause'],
];

/** `<license><url>` values (no scheme, `www.`, trailing `/` or `.txt`/`.html`/`.php`; lower case) of one SPDX license. */
const MAVEN_URLS: Record<string, string> = {
  'apache.org/licenses/license-2.0': 'Apache-2.0',
  'opensource.org/licenses/apache-2.0': 'Apache-2.0',
  'opensource.org/licenses/mit': 'MIT',
  'opensource.org/licenses/mit-license': 'MIT',
  'opensource.org/licenses/bsd-3-clause': 'BSD-3-Clause',
  'opensource.org/licenses/bsd-2-clause': 'BSD-2-Clause',
  'eclipse.org/legal/epl-v10': 'EPL-1.0',
  'eclipse.org/legal/epl-2.0': 'EPL-2.0',
  'eclipse.org/legal/epl-v20': 'EPL-2.0',
};

const SPDX_IDS = [...KNOWN_IDS, 'EPL-1.0', 'EPL-2.0'];

function mavenLicenseId(name: string, url: string | undefined): string | undefined {
  const normal = name.toLowerCase().replace(/\s+-\s+|[,()"]/g, ' ').replace(/\s+/g, ' ').trim();
  const byName = SPDX_IDS.find((id) => id.toLowerCase() === normal) ?? MAVEN_NAMES.find(([re]) => re.test(normal))?.[1];
  if (byName || !url) return byName;
  const u = url.trim().toLowerCase().replace(/^https?:\/\//, '').replace(/^www\./, '').replace(/\/+$/, '').replace(/\.(txt|html?|php)$/, '');
  const spdx = /^spdx\.org\/licenses\/([^/]+)$/.exec(u)?.[1];
  return MAVEN_URLS[u] ?? (spdx ? SPDX_IDS.find((id) => id.toLowerCase() === spdx) : undefined);
}

/**
 * The license of a POM's `<licenses>`: an SPDX expression when every entry is a known license, several joined with
 * OR (the POM reference: with several licenses the user may choose any of them); else every entry as it is named,
 * with the id of those that are known. Entries without a name are named by their URL.
 */
export function mavenLicense(entries: readonly { name?: string; url?: string }[]): { license?: string; namedLicenses?: NamedLicense[] } {
  const named = entries.flatMap((e): NamedLicense[] => {
    const name = e.name?.trim() || e.url?.trim();
    if (!name) return [];
    const url = e.url?.trim() || undefined;
    const id = mavenLicenseId(e.name?.trim() ?? '', url);
    return [{ name, ...(url ? { url } : {}), ...(id ? { id } : {}) }];
  });
  if (!named.length) return {};
  const ids = [...new Set(named.map((n) => n.id))];
  if (ids.includes(undefined)) return { namedLicenses: named };
  return { license: ids.length > 1 ? `(${ids.join(' OR ')})` : ids[0] };
}
