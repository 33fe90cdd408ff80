package openai

import (
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"testing"

	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// TestRanksMatchOffline: the ranks loadBPE reads are the offline
// loader's, key for key and rank for rank, for both encodings metis
// uses, and nothing else is a token.
func TestRanksMatchOffline(t *testing.T) {
	for _, enc := range []string{encodingO200K, encodingCL100K} {
		url := "https://openaipublic.blob.core.windows.net/encodings/" + enc + ".tiktoken"
		want, err := tiktokenloader.NewOfflineLoader().LoadTiktokenBpe(url)
		if err != nil {
			t.Fatal(err)
		}
		e, err := loadBPE(enc)
		if err != nil {
			t.Fatalf("%s: %v", enc, err)
		}
		got := e.ranks
		if got.Len() != len(want) || len(want) < 100000 {
			t.Errorf("%s: %d ranks, want %d (the offline loader's)", enc, got.Len(), len(want))
		}
		for k, v := range want {
			if g, ok := got.rank(k); !ok || g != v {
				t.Errorf("%s: token %q: rank %d (present %t), want %d", enc, k, g, ok, v)
				break
			}
		}
		for _, s := range []string{"", "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00", "tiktoken is great!"} {
			if _, ok := want[s]; ok {
				t.Fatalf("%q is a token after all: pick another", s)
			}
			if r, ok := got.rank(s); ok {
				t.Errorf("%s: %q has rank %d, not a token", enc, s, r)
			}
		}
	}
	if _, err := loadBPE("p50k_base"); err == nil {
		t.Error("an encoding metis has no pattern for loaded without error")
	}
}

// offlineRanks is the offline loader's parse of data (its code reads the
// embedded file only), a panic on a line without a space as an error.
func offlineRanks(data string) (ranks map[string]int, err error) {
	defer func() {
		if recover() != nil {
			err = errors.New("panic")
		}
	}()
	ranks = make(map[string]int)
	for _, line := range strings.Split(data, "\n") {
		if line == "" {
			continue
		}
		parts := strings.Split(line, " ")
		token, err := base64.StdEncoding.DecodeString(parts[0])
		if err != nil {
			return nil, err
		}
		rank, err := strconv.Atoi(parts[1])
		if err != nil {
			return nil, err
		}
		ranks[string(token)] = rank
	}
	return ranks, nil
}

func TestParseRanksErrors(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{"IQ== 0\nIg==\n", "f:2: no space between token and rank"},
		{"IQ== 0\n\nI!== 1\n", "f:3: token: illegal base64 data at input byte 1"},
		{"IQ== x", `f:1: rank: strconv.Atoi: parsing "x": invalid syntax`},
	} {
		_, err := parseRanks("f", []byte(tc.data))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: error %v, want %q", tc.data, err, tc.want)
		}
	}
}

// FuzzParseRanks holds parseRanks to the offline loader's parse: the
// same map, or an error where it fails.
func FuzzParseRanks(f *testing.F) {
	for _, s := range []string{"IQ== 0\nIg== 1\n", "IQ== 0\nIQ== 7", "", "\n\n", "IQ== 1 2\n", "IQ==", "YWJj 5\r\n", "IQ 3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		want, wantErr := offlineRanks(data)
		got, err := parseRanks("f", []byte(data))
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("error %v, the offline loader's %v", err, wantErr)
		}
		if err != nil {
			return
		}
		if got.Len() != len(want) {
			t.Fatalf("%d ranks, want %d", got.Len(), len(want))
		}
		for k, v := range want {
			if g, ok := got.rank(k); !ok || g != v {
				t.Fatalf("token %q: rank %d (present %t), want %d", k, g, ok, v)
			}
			// Every shorter prefix of a token is absent unless the
			// file has it.
			for i := range len(k) {
				if _, in := want[k[:i]]; !in {
					if _, ok := got.rank(k[:i]); ok {
						t.Fatalf("%q is no token but has a rank", k[:i])
					}
				}
			}
		}
	})
}
