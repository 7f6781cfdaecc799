import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { feedSourceLabel } from '../../../src/vulns/feeds/source-label.js';

// A feed's source as the console shows it: kind and host, never a path, a query or credentials.

describe('feedSourceLabel', () => {
  it('names the kind and the host of a URL', () => {
    assert.equal(
      feedSourceLabel('osv', 'https://osv-vulnerabilities.storage.googleapis.com/PyPI/all.zip'),
      'osv · osv-vulnerabilities.storage.googleapis.com',
    );
    assert.equal(
      feedSourceLabel('cisa-kev', 'https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json'),
      'cisa-kev · www.cisa.gov',
    );
  });

  it("keeps nothing of a URL's path, query, fragment, port or credentials", () => {
    const label = feedSourceLabel('osv', 'https://mirror:s3cret@feeds.internal.example:8443/osv/all.zip?token=abc123#frag');
    assert.equal(label, 'osv · feeds.internal.example');
    assert.equal(feedSourceLabel('epss', 'http://[fd00::5]:8080/epss.csv.gz?sig=x'), 'epss · [fd00::5]');
  });

  it('says "local file" for paths, relative names and anything that is not an http(s) URL', () => {
    for (const source of [
      '/srv/feeds/osv/all.zip',
      'feeds/Go.zip',
      'C:\\feeds\\all.zip',
      'file:///srv/feeds/all.zip',
      'ftp://host/x.zip',
      ' ',
    ]) {
      assert.equal(feedSourceLabel('osv', source), source.trim() ? 'osv · local file' : null, source);
    }
  });

  it('is null for a feed never imported', () => {
    assert.equal(feedSourceLabel('eu-kev', null), null);
  });
});
