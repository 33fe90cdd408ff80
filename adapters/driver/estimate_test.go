package driver

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"testing"
)

// encoded returns a w×h image in format as base64.
func encoded(tb testing.TB, format string, w, h int) string {
	var buf bytes.Buffer
	img := image.NewGray(image.Rect(0, 0, w, h))
	var err error
	switch format {
	case "image/png":
		err = png.Encode(&buf, img)
	case "image/jpeg":
		err = jpeg.Encode(&buf, img, nil)
	case "image/gif":
		err = gif.Encode(&buf, img, nil)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

// FuzzImageSize feeds arbitrary image data to the header sniffing the
// token estimate uses (imageSize): it never panics, and a size it reports
// is positive. Seeds are real PNG, JPEG and GIF headers, data URIs and
// broken ones.
func FuzzImageSize(f *testing.F) {
	for _, mt := range []string{"image/png", "image/jpeg", "image/gif"} {
		data := encoded(f, mt, 3, 2)
		f.Add(mt, data)
		f.Add("", "data:"+mt+";base64,"+data)
		f.Add(mt, data[:len(data)/2])
	}
	f.Add("image/png", "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB")
	f.Add("image/webp", "UklGRiQAAABXRUJQVlA4IBgAAAAwAQCdASoBAAEAAwA0JaQAA3AA/vuUAAA=")
	f.Add("", "data:image/png;base64")
	f.Add("image/jpeg", "////")
	f.Fuzz(func(t *testing.T, mediaType, data string) {
		w, h, ok := imageSize(mediaType, data)
		if ok && (w <= 0 || h <= 0) {
			t.Fatalf("imageSize(%q, %q) = %d×%d, ok", mediaType, data, w, h)
		}
		if !ok && (w != 0 || h != 0) {
			t.Fatalf("imageSize(%q, %q) = %d×%d, not ok", mediaType, data, w, h)
		}
	})
}

// TestImageSize: the sizes of real headers, by media type or data URI.
func TestImageSize(t *testing.T) {
	for _, mt := range []string{"image/png", "image/jpeg", "image/gif"} {
		data := encoded(t, mt, 3, 2)
		for _, in := range [][2]string{{mt, data}, {"", "data:" + mt + ";base64," + data}} {
			if w, h, ok := imageSize(in[0], in[1]); !ok || w != 3 || h != 2 {
				t.Errorf("imageSize(%q, %.30q…) = %d, %d, %v; want 3, 2, true", in[0], in[1], w, h, ok)
			}
		}
		if _, _, ok := imageSize(mt, data[:8]); ok {
			t.Errorf("%s: a cut header gave a size", mt)
		}
	}
}
