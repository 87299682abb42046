package cachefmt

import (
	"bytes"
	"errors"
	"maps"
	"testing"
)

// shared is a blob sampleSite's files share.
var shared = map[string][]byte{"lib": []byte("a library every site holds"), "other": []byte("unused")}

// siteEntry is the entry of a rendered site, as the store writes it.
func siteEntry(t testing.TB, files map[string][]byte, warned []byte) []byte {
	var b bytes.Buffer
	if _, err := WriteEntry(&b, []byte(SiteStamp), EncodeSite(files, warned, shared)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func sampleSite() map[string][]byte {
	return map[string][]byte{
		"index.html":           []byte("<!doctype html><p>x</p>"),
		"data/provenance.json": []byte("{}\n"),
		"figures/a b.svg":      {},
		"assets/blob":          bytes.Repeat([]byte{0, 1, 2, 255}, 300),
		"assets/lib.js":        []byte("a library every site holds"),
	}
}

// TestSiteRoundTrip: a rendered site's entry gives back its files and
// warnings byte for byte, an empty file and a warning-less site too; a
// file that is a shared blob is named, not held.
func TestSiteRoundTrip(t *testing.T) {
	for _, warned := range [][]byte{nil, []byte("evalbook: warning: one\nevalbook: warning: two\n")} {
		entry := siteEntry(t, sampleSite(), warned)
		if bytes.Contains(entry, shared["lib"]) {
			t.Error("the entry holds the shared blob")
		}
		files, w, err := ReadSite(entry, shared)
		if err != nil {
			t.Fatal(err)
		}
		if !maps.EqualFunc(files, sampleSite(), bytes.Equal) || !bytes.Equal(w, warned) {
			t.Errorf("read back %d files, warnings %q; wrote %d, %q", len(files), w, len(sampleSite()), warned)
		}
	}
}

// TestSiteDamaged: every changed byte, and every cut, of a rendered
// site's entry is an error wrapping ErrDamaged, never other files.
func TestSiteDamaged(t *testing.T) {
	entry := siteEntry(t, sampleSite(), []byte("w\n"))
	for i := range entry {
		b := bytes.Clone(entry)
		b[i] ^= 0x01
		if _, _, err := ReadSite(b, shared); !errors.Is(err, ErrDamaged) {
			t.Fatalf("byte %d changed: %v, want a damaged entry", i, err)
		}
	}
	for n := 0; n < len(entry); n += 7 {
		if _, _, err := ReadSite(entry[:n], shared); !errors.Is(err, ErrDamaged) {
			t.Fatalf("cut at %d: %v, want a damaged entry", n, err)
		}
	}
	// read with another binary's blobs: not the site that was written
	if _, _, err := ReadSite(entry, map[string][]byte{"other": shared["other"]}); !errors.Is(err, ErrDamaged) {
		t.Fatalf("a shared blob missing: %v, want a damaged entry", err)
	}
}

// FuzzDecodeSite: no payload makes DecodeSite panic, and what it
// accepts encodes back to the same bytes (one encoding per site).
func FuzzDecodeSite(f *testing.F) {
	f.Add(EncodeSite(sampleSite(), []byte("w\n"), shared))
	f.Add(EncodeSite(nil, nil, nil))
	f.Add([]byte(siteMagic + "\x00\x01\x00"))
	f.Add(EncodeSite(map[string][]byte{"a": []byte("x")}, nil, nil))
	f.Add(EncodeSite(map[string][]byte{"a": shared["lib"]}, nil, nil)) // a blob held: refused
	f.Fuzz(func(t *testing.T, b []byte) {
		files, warned, err := DecodeSite(b, shared)
		if err != nil {
			return
		}
		if again := EncodeSite(files, warned, shared); !bytes.Equal(again, b) {
			t.Fatalf("decoded %d files from %q, which encode to %q", len(files), b, again)
		}
	})
}
