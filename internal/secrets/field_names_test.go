package secrets

import (
	"strings"
	"testing"
)

// isSecretFieldSlow is IsSecretField's definition, spelled out.
func isSecretFieldSlow(name string) bool {
	return fieldNames[strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(name))]
}

func FuzzIsSecretField(f *testing.F) {
	for _, s := range []string{"", "api_key", "X-Api-Key", "x-goog-api-key", "API\u212AEY", "authorization", "AWS_SECRET_ACCESS_KEY",
		"a_w_s_s_e_c_r_e_t_a_c_c_e_s_s_k_e_y", "token", "key", "passwordpasswordpasswordpasswordx", "ünïcode", "pass-word", "--"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := IsSecretField(name), isSecretFieldSlow(name); got != want {
			t.Fatalf("IsSecretField(%q) = %v, want %v", name, got, want)
		}
	})
}
