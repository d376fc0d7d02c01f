//! The redactor against a corpus of realistic secrets in the syntaxes they come in, and a
//! list of realistic non-secrets that must come out unchanged.

use super::*;

/// Redacts `text`; every `secret` must be gone, every `kept` must stay.
fn check(text: &str, secrets: &[&str], kept: &[&str]) -> String {
    let (out, n) = redact(text);
    for s in secrets {
        assert!(!out.contains(s), "`{s}` left in:\n{out}");
    }
    for k in kept {
        assert!(out.contains(k), "`{k}` was redacted:\n{out}");
    }
    assert!(n >= secrets.len().min(1), "{out}");
    out
}

#[test]
fn every_rule_matches_its_examples_and_not_its_counter_examples() {
    for rule in &rules().rules {
        for e in &rule.examples {
            let (out, n) = redact(e);
            assert!(
                n > 0 && out.contains(MARK),
                "{}: `{e}` not found: {out}",
                rule.id
            );
        }
        for e in &rule.not {
            let (out, _) = redact(e);
            assert_eq!(&out, e, "{}: `{e}` redacted", rule.id);
        }
    }
}

#[test]
fn a_rule_s_secret_parameters_are_its_regex_s_and_no_others() {
    let with_params: Vec<&rules::Rule> = rules()
        .rules
        .iter()
        .filter(|r| !r.params.is_empty())
        .collect();
    assert!(
        !with_params.is_empty(),
        "the presigned-URL rule lists its parameters"
    );
    for rule in with_params {
        for p in &rule.params {
            let url = format!("https://h.example/x.tar?{p}=Zq8vN3kT0pW5rY2u&other=1");
            let (out, n) = redact(&url);
            assert!(
                n > 0 && !out.contains("Zq8vN3kT0pW5rY2u"),
                "{}: `{p}`: {out}",
                rule.id
            );
        }
        // A parameter of the same family that the list does not name is left alone.
        for p in [
            "X-Amz-Algorithm",
            "X-Amz-Date",
            "X-Amz-SignedHeaders",
            "X-Goog-Date",
            "sv",
            "se",
        ] {
            let url = format!("https://h.example/x.tar?{p}=Zq8vN3kT0pW5rY2u&other=1");
            assert!(
                !rule.params.iter().any(|q| q.eq_ignore_ascii_case(p)),
                "{p}"
            );
            assert_eq!(redact(&url).0, url, "{}: `{p}` redacted", rule.id);
        }
    }
}

#[test]
fn command_lines_of_the_tools_that_take_secrets() {
    check(
        "docker login -u admin -p PASS0001 registry.example.com\n\
         curl -u user:PASS0002 https://x/api\n\
         curl --user 'ops:PASS 0003' https://x\n\
         sshpass -p PASS0004 ssh root@host\n\
         ipmitool -I lanplus -H 10.0.0.9 -U ADMIN -P PASS0005 power status\n\
         echo PASS0006 | sudo -S apt-get install fio\n\
         twine upload -u __token__ -p pypi-AgEIcHlwaS5vcmcPASS0007abcdefghijklmnopqrstuvwxyzABCDEF dist/*\n\
         wandb login 0123456789abcdef0123456789abcdefPASS0008\n\
         mysql -uroot -pPASS0009 bench\n\
         redis-cli -h cache -a PASS0010 ping\n\
         nvme connect -t tcp -a 10.0.0.2 -n nqn.x -S DHHC-1:00:PASS0011abcdefghijklmnopqrstuvwxyz0123456789:\n\
         nvme discover -t rdma -a 10.0.0.2 --dhchap-secret=PASS0012\n\
         printf '%s\\n' PASS0013 | docker login --username ci --password-stdin ghcr.io\n\
         vault login PASS0014\n\
         huggingface-cli login --token PASS0015\n\
         openssl enc -aes-256-cbc -k PASS0016 -in a\n\
         smbclient //nas/share -U backup%PASS0017\n\
         skopeo copy --src-creds user:PASS0018 docker://a docker://b\n",
        &[
            "PASS0001", "PASS0002", "PASS 0003", "PASS0004", "PASS0005", "PASS0006", "PASS0007",
            "PASS0008", "PASS0009", "PASS0010", "PASS0011", "PASS0012", "PASS0013", "PASS0014",
            "PASS0015", "PASS0016", "PASS0017", "PASS0018",
        ],
        &[
            "docker login -u admin -p",
            "registry.example.com",
            "curl -u user:",
            "https://x/api",
            "ssh root@host",
            "-U ADMIN",
            "power status",
            "sudo -S apt-get install fio",
            "-uroot",
            "redis-cli -h cache",
            "ping",
            "nvme connect -t tcp -a 10.0.0.2",
            "--password-stdin ghcr.io",
            "smbclient //nas/share -U backup%",
        ],
    );
}

#[test]
fn keys_whose_names_say_secret_in_every_notation() {
    check(
        "{\"auths\": {\"reg.example\": {\"identitytoken\": \"TOK0001\"}}}\n\
         users:\n- name: admin\n  user:\n    client-key-data: TOK0002base64\n    token: TOK0003abcdef\n\
         data:\n  .dockerconfigjson: eyTOK0004\n\
         \"dhchap_key\": \"DHHC-1:00:TOK0005abcdefghijklmnopqrstuvwxyz0123456789:\"\n\
         {\"psk\": \"NVMeTLSkey-1:01:TOK0006abcdefghijklmnopqrstuvwxyz0123456789:\"}\n\
         gateway --license-key=TOK0007\n\
         STRIPE_KEY=sk_live_TOK0008abcdefghij\n\
         SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T00000000/B00000000/TOK0009XXXXXXXXXXXXXXX\n\
         SENTRY_DSN=https://0123456789abcdef0123456789abcdef@o12345.ingest.sentry.io/678\n\
         --http_s3_key=TOK0011 --http_s3_keyid=AKIAIOSFODNN7EXAMPLE\n",
        &[
            "TOK0001", "TOK0002", "TOK0003", "TOK0004", "TOK0005", "TOK0006", "TOK0007",
            "TOK0008", "TOK0009", "0123456789abcdef0123456789abcdef", "TOK0011",
            "AKIAIOSFODNN7EXAMPLE",
        ],
        &["- name: admin", "--http_s3_keyid="],
    );
}

#[test]
fn the_mark_replaces_the_value_and_leaves_the_syntax() {
    let out = check("'api_key': ['0a1b2c3d4e5f6789']\n", &["0a1b2c3d"], &[]);
    assert_eq!(out, "'api_key': ['[REDACTED]']\n");
    let out = check(
        "vllm serve m --api-key \\\n    KEY0001 --port 8000\n",
        &["KEY0001"],
        &["--port 8000"],
    );
    assert!(out.contains("--api-key \\\n    [REDACTED] --port"), "{out}");
    let out = check(
        "auth:\n  password: >-\n    KEY0002 first\n    KEY0003 second\n  user: bench\n",
        &["KEY0002", "KEY0003"],
        &["user: bench"],
    );
    assert!(out.contains("password: >-\n    [REDACTED]"), "{out}");
    let out = check(
        "{\"config\": \"{\\\"db_password\\\": \\\"KEY0004\\\", \\\"host\\\": \\\"db\\\"}\"}",
        &["KEY0004"],
        &["host"],
    );
    serde_json::from_str::<serde_json::Value>(&out).expect("still JSON");
    check(
        "\u{1b}[32mAPI_KEY\u{1b}[0m=\u{1b}[1mKEY0005\u{1b}[0m\n",
        &["KEY0005"],
        &[],
    );
    check(
        "command:\n  - --api-key\n  - KEY0006\n  - --port\n  - \"8000\"\n",
        &["KEY0006"],
        &["\"8000\""],
    );
}

#[test]
fn private_keys_of_every_armour() {
    check(
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGQ1KEY0001\n=abcd\n-----END PGP PRIVATE KEY BLOCK-----\n\
         PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: bench\nPublic-Lines: 2\nAAAAC3NzaC1\nlZDI1NTE5\nPrivate-Lines: 1\nKEY0002AAAAIG\nPrivate-MAC: KEY0003abcdef\n\
         -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaKEY0004\n-----END OPENSSH PRIVATE KEY-----\n",
        &["KEY0001", "KEY0002", "KEY0003", "KEY0004"],
        &[],
    );
}

#[test]
fn netrc_lines_and_environ_files() {
    let (out, _) = redact_file(
        "home/.netrc",
        "machine registry.example login ci password NET0001\nmachine other\n  login bob\n  password NET0002\n",
    );
    assert!(
        !out.contains("NET0001") && !out.contains("NET0002"),
        "{out}"
    );
    assert!(
        out.contains("machine registry.example login ci password"),
        "{out}"
    );
    let environ = "PATH=/usr/bin\0HF_TOKEN=ENV0001abc\0HOME=/root\0LANG=C.UTF-8\0";
    let (out, _) = redact(environ);
    assert!(!out.contains("ENV0001"), "{out:?}");
    assert!(
        out.contains("\0HOME=/root\0LANG=C.UTF-8\0"),
        "the variables after a secret stay: {out:?}"
    );
}

#[test]
fn realistic_non_secrets_are_left_as_they_are() {
    for text in [
        "INFO non-default args: {'model': '/models/GLM-5.3-FP8', 'enable_prompt_tokens_details': True, 'max_num_batched_tokens': 8192}\n",
        "time 2.118532 s  {\"prompt_tokens\":196531,\"cached\":196480}\n",
        "vllm:prefix_cache_hits_total{engine=\"0\",model_name=\"glm-5.3\"} 60032.0\n",
        "Namespace(input_file='level.json', api_key=None, header=None, num_clients=8, no_early_stop=True)\n",
        "\"global options\" : { \"buffer_compress_percentage\" : \"67\", \"filename\" : \"/dev/md126\" }\n",
        "vllm serve glm --max-num-batched-tokens 8192 --max-model-len 262144 --enable-prefix-caching\n",
        "PasswordAuthentication=no\nPasswordAuthentication no\n",
        "Enter the password via stdin, or pass it in a file\n",
        "docker login nexus.awide.io --username ci --password-stdin < token.txt\n",
        "auth: CHAP\nnvme connect -t rdma -a 10.0.0.2 -n nqn.2014-08.org.nvmexpress:uuid:5f6e\n",
        "secretName: hf-token\nsecretKeyRef:\n  name: hf-token\n  key: token\n",
        "env:\n  - name: HF_TOKEN\n    valueFrom:\n      secretKeyRef:\n        name: hf\n        key: token\n",
        "host bench01.lab.example ran 12 jobs, 3 tokens/s\n",
        "docker run -p 8000:8000 -e VLLM_SERVER_DEV_MODE=1 vllm/vllm-openai\n",
        "Authentication succeeded for user ci via publickey\n",
        "fio --name=randread --rw=randread --bs=8k --iodepth=32 --numjobs=32 --group_reporting\n",
        "sha256: 4f5e1c0b9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f\n",
        "  \"eos_token\": \"</s>\", \"bos_token_id\": 1, \"pad_token\": \"<pad>\"\n",
        "Request cmpl-4f1e2d3c4b5a69788796a5b4c3d2e1f0: prompt tokens 196531\n",
        "cookie jar disabled; session timeout 30s\n",
        "- key: app\n  operator: In\n",
    ] {
        let (out, n) = redact(text);
        assert_eq!((out.as_str(), n), (text, 0), "over-redacted");
    }
}

#[test]
fn redacting_twice_changes_nothing_and_masks_in_messages() {
    let text = "PASSWORD=hunter2\n";
    let (once, n) = redact(text);
    assert_eq!(n, 1);
    assert_eq!(redact(&once), (once.clone(), 0));
    let f = &find(text)[0];
    let m = masked(text, f);
    assert!(m.contains("line 1") && !m.contains("hunter2"), "{m}");
}

#[test]
fn the_earlier_corpus_still_goes() {
    check(
        "HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz1234567\n\
         environment:\n  OPENAI_API_KEY: not-a-known-shape\n  DB_PASSWORD: \"correct horse battery staple\"\n\
         {\"token\": \"t0k3n1\", \"prompt_tokens\": 196531, \"max_tokens\": 1}\n\
         vllm serve --api-key s3cret --served-model-name glm\n\
         vllm serve --hf-token=abc123\n\
         args: ['--api-key', 'k1', \"--password\", \"p 2\"]\n\
         Namespace(api_key='zz9', header=None)\n\
         yaml_pass: multi word value here\n\
         curl -H 'Authorization: Bearer abc.def-ghi' https://x/v1\n\
         Proxy-Authorization: Basic cHJveHk6cHc=\n\
         X-Api-Key: key-with-dashes\n\
         Cookie: sid=abc; other=def\n\
         https://user:pa55@registry.example/x redis://:only-pw@cache:6379 postgres://u:p@ss@db/x\n",
        &[
            "hf_abc", "not-a-known-shape", "correct horse", "t0k3n1", "s3cret", "abc123", "'k1'",
            "p 2", "zz9", "multi word value", "abc.def-ghi", "cHJveHk6cHc=", "key-with-dashes",
            "sid=abc", "pa55", "only-pw", "p@ss",
        ],
        &[
            "\"prompt_tokens\": 196531",
            "--served-model-name glm",
            "header=None",
            "https://x/v1",
            "@registry.example/x",
            "@db/x",
        ],
    );
}

#[test]
fn the_corpus_fixture_leaves_nothing_and_the_non_secrets_stay() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/secrets");
    let corpus = std::fs::read_to_string(dir.join("corpus.txt")).expect("corpus");
    let (out, _) = redact(&corpus);
    let seed = regex::Regex::new(r"LEAK\d\d").expect("regex");
    let left: Vec<&str> = out.lines().filter(|l| seed.is_match(l)).collect();
    assert!(left.is_empty(), "left in:\n{}", left.join("\n"));
    let kept = std::fs::read_to_string(dir.join("nonsecrets.txt")).expect("non-secrets");
    let (out, n) = redact(&kept);
    let changed: Vec<(&str, &str)> = kept
        .lines()
        .zip(out.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert!(changed.is_empty() && n == 0, "over-redacted: {changed:?}");
}

#[test]
fn a_record_s_value_goes_when_its_name_member_names_a_secret() {
    // Kubernetes env as JSON, an API's parameter list, a Triton-style parameter.
    let text = r#"{"env": [
  {"name": "VLLM_API_KEY", "value": "Rk9vYmFyQmF6UXV4MTIzNDU2"},
  {"name": "HF_HOME", "value": "/models/hf"},
  {"Key": "db_password", "Value": 424242},
  {"name": "model_name", "value": "glm-5.3"},
  {"key": "auth_token", "string_value": "s3cr3t-Tok3n-99"},
  {"name": "password", "value": {"from": "a secret"}}
]}"#;
    let out = check(
        text,
        &["Rk9vYmFyQmF6UXV4MTIzNDU2", "424242", "s3cr3t-Tok3n-99"],
        &[
            "/models/hf",
            "glm-5.3",
            "VLLM_API_KEY",
            "\"from\": \"a secret\"",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&out).expect("still JSON");
    assert_eq!(
        v["env"][2]["Value"], "[REDACTED]",
        "a number becomes the mark, quoted"
    );
}

#[test]
fn a_yaml_record_s_value_goes_when_its_name_names_a_secret() {
    let text = "spec:\n  containers:\n  - name: vllm\n    env:\n    - name: VLLM_API_KEY\n      value: Zq8vN3kT0pW5rY2u\n    - name: HF_HOME\n      value: /models/hf\n    - name: DB_PASSWORD\n      value: \"hunter2-but-longer\"\n    - name: TOKEN_FILE\n      valueFrom:\n        secretKeyRef: {name: t, key: token}\n    - name: MODEL\n      value: glm-5.3\n";
    let out = check(
        text,
        &["Zq8vN3kT0pW5rY2u", "hunter2-but-longer"],
        &[
            "/models/hf",
            "glm-5.3",
            "VLLM_API_KEY",
            "secretKeyRef: {name: t, key: token}",
        ],
    );
    assert!(
        out.contains("      value: \"[REDACTED]\""),
        "the quotes stay: {out}"
    );
}

/// A JSON string our rules write again (it has escapes and a secret of ours) keeps no
/// token only gitleaks' rules know (a Pulumi token: lower-case hex, no name near it),
/// and stays JSON; a string without escapes gets the mark in place.
#[test]
fn a_token_only_gitleaks_knows_leaves_json_strings_ours_rewrite() {
    let token = "pul-0123456789abcdef0123456789abcdef01234567";
    let text =
        format!(r#"{{"log": "export PASSWORD=hunter2hunter2\ndeploy {token}", "n": "{token}"}}"#);
    let (out, _) = redact(&text);
    assert!(!out.contains("hunter2hunter2"), "{out}");
    assert!(!out.contains("0123456789abcdef0123456789"), "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("still JSON");
    assert_eq!(v["n"], MARK, "{out}");
}

/// gitleaks' lazy private-key pattern runs from a short key to the next key's end; ours
/// find both keys, whole, with blank-separated lines between them: those lines are
/// evidence and stay.
#[test]
fn lines_between_two_private_keys_stay_when_gitleaks_pattern_runs_across_them() {
    let text = "-----BEGIN RSA PRIVATE KEY-----\nshortbody\n-----END RSA PRIVATE KEY-----\n\
                fio --name=randwrite-8k-j8-d8 ran at 6934 MB/s\n\
                -----BEGIN PRIVATE KEY-----\nanother\n-----END PRIVATE KEY-----\n";
    let (out, _) = redact(text);
    assert!(
        out.contains("fio --name=randwrite-8k-j8-d8 ran at 6934 MB/s"),
        "{out}"
    );
    assert!(
        !out.contains("shortbody") && !out.contains("another"),
        "{out}"
    );
}

/// A secret coloured by a terminal's control sequences, or split by one, is found: the
/// text is read without them. Before, `\x1b[1mAKIA…` left with the bundle (no word
/// boundary after the `m`), and the split key too. The colour sequences themselves stay
/// whole, and a coloured line with no secret comes out unchanged.
#[test]
fn a_secret_coloured_or_split_by_terminal_sequences_is_redacted_and_the_colours_stay() {
    let key = "AKIAZZSFODNN7EXAMPLQ";
    let text = "INFO colour \x1b[1mAKIAZZSFODNN7EXAMPLQ\x1b[0m done\n\
                INFO split AKIA\x1b[0mYYSFODNN7EXAMPLQ here\n\
                \x1b[32mINFO\x1b[0m 16 clients: 1,234 requests\n";
    let out = check(
        text,
        &[key, "YYSFODNN7EXAMPLQ"],
        &["\x1b[1m", " done\n", " here\n"],
    );
    assert!(
        out.contains(&format!("\x1b[1m{MARK}\x1b[0m done")),
        "{out:?}"
    );
    assert!(
        out.ends_with("\x1b[32mINFO\x1b[0m 16 clients: 1,234 requests\n"),
        "{out:?}"
    );
    let plain = "\x1b[32mINFO\x1b[0m \x1b[1;31mERROR\x1b[0m level 16 done\n";
    assert_eq!(redact(plain), (plain.to_string(), 0));
    // Right after `\x1b[` a key's first letter reads as a sequence's end (`\x1b[A`,
    // cursor up): the text as it stands still shows the key.
    check(
        "x \x1b[AKIAZZSFODNN7EXAMPLQ y\n",
        &["AKIAZZSFODNN7EXAMPLQ", "ZZSFODNN7EXAMPLQ"],
        &[" y\n"],
    );
}
