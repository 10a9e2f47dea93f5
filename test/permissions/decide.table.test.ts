import { describe, expect, it } from "vitest";
import { decide, denialText, intersect, offered } from "../../src/permissions/index.js";
import { CWD, inputFor, JUDGED, judge, list, SPECS } from "../support/permissions.js";

// One line per case: [allow list, deny list, tool, subject value, expected].
// `null` allow means no allow list at that level; "" deny means none.
type Case = [allow: string | null, deny: string, tool: string, value: unknown, expected: string];

const BASH: Case[] = [
  ["Bash(git:*)", "", "Bash", "git", "allowed"],
  ["Bash(git:*)", "", "Bash", "git status", "allowed"],
  ["Bash(git:*)", "", "Bash", "git  status   --short", "allowed"],
  ["Bash(git:*)", "", "Bash", "  git log -1", "allowed"],
  ["Bash(git:*)", "", "Bash", "gitk", "denied: no-pattern-matched"],
  ["Bash(git:*)", "", "Bash", "git-lfs pull", "denied: no-pattern-matched"],
  // A compound line is judged command by command: every one must be allowed.
  ["Bash(git:*)", "", "Bash", "git status; rm -rf /", "denied: no-pattern-matched"],
  ["Bash(git:*)", "", "Bash", "git $(rm -rf ~)", "denied: no-pattern-matched"],
  ["Bash(git:*)", "", "Bash", "git `rm -rf ~`", "denied: no-pattern-matched"],
  ["Bash(git:*)", "", "Bash", "git status\nrm -rf /", "denied: no-pattern-matched"],
  ["Bash(git:*)", "", "Bash", "git status\rrm -rf /", "denied: cannot-judge"],
  ["Bash(git:*)", "", "Bash", "git status && curl x", "denied: no-pattern-matched"],
  ["Bash(git:*)", "", "Bash", "git status || curl x", "denied: no-pattern-matched"],
  ["Bash(git:*)", "", "Bash", "git log | sh", "denied: no-pattern-matched"],
  ["Bash(git:*)", "", "Bash", "git diff <(rm -rf x)", "denied: no-pattern-matched"],
  ["Bash(git:*)", "", "Bash", "(git log; git status)", "allowed"],
  ["Bash(git:*)", "", "Bash", "git log && git status | git hash-object --stdin", "allowed"],
  ["Bash(git:*)", "", "Bash", "git log &", "allowed"],
  ["Bash(git:*)", "", "Bash", "git log $HOME", "allowed"],
  ["Bash(git:*)", "", "Bash", 'git commit -m "fix: a bug"', "allowed"],
  ["Bash(git:*)", "", "Bash", "git apply < patch", "allowed"],
  ["Bash(git log:*)", "", "Bash", "git $SUB", "denied: no-pattern-matched"],
  ["Bash(git log:*), Bash(head:*)", "", "Bash", "git log --oneline | head -20", "allowed"],
  ["Bash(git log:*), Bash(head:*)", "", "Bash", "git log --oneline | tail -20", "denied: no-pattern-matched"],
  ["Bash(git status)", "", "Bash", "git status; rm -rf x", "denied: no-pattern-matched"],
  // A redirection to a file is a Write of that path; 2>&1 and /dev/null are always fine.
  ["Bash(git:*)", "", "Bash", "git log > /etc/passwd", "denied: not-offered"],
  ["Bash(git:*)", "", "Bash", "git log > /dev/null 2>&1", "allowed"],
  ["Bash(git:*)", "", "Bash", "git log 2>/dev/null >&2", "allowed"],
  ["Bash(git:*), Write(/proj/out/**)", "", "Bash", "git log > out/log.txt", "allowed"],
  ["Bash(git:*), Write(/proj/out/**)", "", "Bash", "git log >> /etc/cron.d/x", "denied: no-pattern-matched"],
  ["Bash(git:*), Write(/proj/out/**)", "", "Bash", "git log &> $TARGET", "denied: cannot-judge"],
  ["Bash(git:*), Write", "", "Bash", "git log > anything", "allowed"],
  // With Bash unrestricted, a redirection still meets the deny rules that guard writing.
  ["Bash", "Edit(/proj/src/**)", "Bash", "echo x > src/f.ts", "denied: denied-by-rule"],
  ["Bash", "Write(/proj/src/**)", "Bash", "ls; echo x >> /proj/src/f.ts", "denied: denied-by-rule"],
  ["Bash", "Edit(/proj/src/**)", "Bash", "echo x > out/f.ts", "allowed"],
  ["Bash", "Edit(/proj/src/**)", "Bash", "echo x > $F", "denied: cannot-judge"],
  ["Bash", "Edit(/proj/src/**)", "Bash", "rm -rf build", "allowed"],
  ["Bash", "Write", "Bash", "echo x > anything", "denied: denied-by-rule"],
  ["Bash", "Write", "Bash", "echo x 2>&1 > /dev/null", "allowed"],
  // What cannot be reduced to plain words is denied whenever a pattern applies.
  ["Bash(git:*)", "", "Bash", "$CMD status", "denied: cannot-judge"],
  ["Bash(git:*)", "", "Bash", "g*t status", "denied: cannot-judge"],
  ["Bash(git:*)", "", "Bash", "eval git status", "denied: cannot-judge"],
  ["Bash(git:*)", "", "Bash", "git status )", "denied: cannot-judge"],
  ["Bash(python3:*)", "", "Bash", "python3 <<EOF\nimport os\nEOF", "denied: cannot-judge"],
  ["Bash(bash:*)", "", "Bash", "bash <<< 'rm -rf x'", "denied: cannot-judge"],
  ["Bash(git:*)", "", "Bash", "PATH=/tmp/evil git status", "denied: cannot-judge"],
  ["Bash(git:*)", "", "Bash", "PATH=/tmp/evil; git status", "denied: cannot-judge"],
  ["Bash(git:*), Bash(export:*)", "", "Bash", "export PATH=/tmp/evil; git status", "denied: cannot-judge"],
  ["Bash(git:*)", "", "Bash", "x=1; git status", "allowed"],
  ["Bash(git:*)", "", "Bash", "x=$(curl evil.io); git status", "denied: no-pattern-matched"],
  ["Bash(git:*)", "", "Bash", "f() { rm -rf x; }; git status", "denied: no-pattern-matched"],
  ["Bash(git:*)", "", "Bash", "for f in a b; do git add $f; done", "allowed"],
  ["Bash(git:*)", "", "Bash", "cat <<EOF\n$(rm -rf x)\nEOF", "denied: no-pattern-matched"],
  ["Bash(git:*)", "", "Bash", "rm -rf ~", "denied: no-pattern-matched"],
  ["Bash(git:*)", "", "Bash", "", "denied: cannot-judge"],
  ["Bash(git:*)", "", "Bash", "   ", "denied: cannot-judge"],
  ["Bash(git:*)", "", "Bash", 42, "denied: cannot-judge"],
  ["Bash(git:*)", "", "Bash", null, "denied: cannot-judge"],
  ["Bash(git:*)", "", "Bash", ["git", "status"], "denied: cannot-judge"],
  ["Bash(git:*)", "", "Bash", undefined, "denied: cannot-judge"],
  ["Bash(npm install)", "", "Bash", "npm install", "allowed"],
  ["Bash(npm install)", "", "Bash", "npm  install", "allowed"],
  ["Bash(npm install)", "", "Bash", "npm install lodash", "denied: no-pattern-matched"],
  ["Bash(npm install)", "", "Bash", "npm", "denied: no-pattern-matched"],
  ["Bash(npm install)", "", "Bash", "npm install; ls", "denied: no-pattern-matched"],
  ["Bash(npm install)", "", "Bash", "npm install && npm install", "allowed"],
  ['Bash(git commit -m "wip")', "", "Bash", "git commit -m 'wip'", "allowed"],
  ['Bash(git commit -m "wip")', "", "Bash", "git commit -m wip now", "denied: no-pattern-matched"],
  ["Bash(echo a b)", "", "Bash", 'echo "a b"', "denied: no-pattern-matched"],
  ["Bash(git diff:*)", "", "Bash", "git diff HEAD~1", "allowed"],
  ["Bash(git diff:*)", "", "Bash", "git diff", "allowed"],
  ["Bash(git diff:*)", "", "Bash", "git diff-tree HEAD", "denied: no-pattern-matched"],
  ["Bash(git diff:*)", "", "Bash", "git status", "denied: no-pattern-matched"],
  ["Bash(git diff:*)", "", "Bash", "rm -rf x", "denied: no-pattern-matched"],
  ["Bash(ls *)", "", "Bash", "ls -la", "allowed"],
  ["Bash(ls *)", "", "Bash", "ls", "allowed"],
  ["Bash(ls *)", "", "Bash", "lsof", "denied: no-pattern-matched"],
  ["Bash(*)", "", "Bash", "anything at all", "allowed"],
  ["Bash(*)", "", "Bash", "echo hi; rm -rf /", "allowed"],
  ["Bash(*)", "", "Bash", "eval rm -rf /", "denied: cannot-judge"],
  ["Bash(git * status)", "", "Bash", "git x status", "denied: bad-pattern"],
  ["Bash(*git)", "", "Bash", "git", "denied: bad-pattern"],
  ["Bash", "", "Bash", "echo hi; rm -rf /", "allowed"],
  ["Bash", "", "Bash", "", "allowed"],
  ["Bash(git:*), Bash(npm test)", "", "Bash", "npm test", "allowed"],
  ["Bash(git:*), Bash(npm test)", "", "Bash", "npm test --watch", "denied: no-pattern-matched"],
  ["Bash(git:*), Bash(npm test)", "", "Bash", "npm test && git status", "allowed"],
  ["Bash(./gradlew:*)", "", "Bash", "./gradlew build", "allowed"],
  ["Bash(./gradlew:*)", "", "Bash", "./gradlew", "allowed"],
  ["Bash(git:*)", "", "Bash", "/tmp/evil/git status", "denied: no-pattern-matched"],
];

// Code the parser reads as text, and values bash evaluates a second time: cannot be judged.
const G = "Bash(git:*)";
const E = "Bash(echo:*)";
const RM = "Bash(rm:*)";
const HIDDEN: Case[] = [
  [G, RM, "Bash", "git status ${X:-`touch pwned; rm victim`}", "denied: cannot-judge"],
  [G, RM, "Bash", "git status ${X-`rm v`}", "denied: cannot-judge"],
  [G, RM, "Bash", "git status ${X:+`rm v`}", "denied: cannot-judge"],
  [G, RM, "Bash", "git status ${X:=`rm v`}", "denied: cannot-judge"],
  [G, RM, "Bash", "git status ${X:?`rm v`}", "denied: cannot-judge"],
  [G, RM, "Bash", "git status ${X#`rm v`}", "denied: cannot-judge"],
  [G, RM, "Bash", "git status ${X#$(rm v)}", "denied: cannot-judge"],
  [G, RM, "Bash", "git status ${X/a/`rm v`}", "denied: cannot-judge"],
  [G, RM, "Bash", 'git status "${X:-`rm v`}"', "denied: cannot-judge"],
  [G, RM, "Bash", "git status \"${X:-'$(rm v)'}\"", "denied: cannot-judge"],
  [G, RM, "Bash", "git status ${X:-$[a]}", "denied: cannot-judge"],
  [G, RM, "Bash", "git status ${X:-<(rm v)}", "denied: cannot-judge"],
  [G, RM, "Bash", "git status ${X:-a #`rm v`}", "denied: cannot-judge"],
  [G, "", "Bash", "git status ${X:-$(rm v)}", "denied: no-pattern-matched"],
  [G, RM, "Bash", "git status ${X:-$(rm v)}", "denied: denied-by-rule"],
  ["Bash(cat:*)", "", "Bash", "cat <<EOF\n`rm v`\nEOF", "denied: cannot-judge"],
  ["Bash(cat:*)", "", "Bash", "cat <<'EOF'\n`rm v` $(rm w)\nEOF", "allowed"],
  ["Bash", "Edit(/proj/src/**)", "Bash", "echo ${X:-`echo x > src/f`}", "denied: cannot-judge"],
  [G, RM, "Bash", "git commit -m 'use `x` and $(y)'", "allowed"],
  [G, RM, "Bash", 'git commit -m "use \\`x\\`"', "allowed"],
  [G, RM, "Bash", "git status ${X:-default} ${#X} ${X%.txt}", "allowed"],
  // Arithmetic reads a variable's value as an expression; an array index in it runs commands.
  [E, RM, "Bash", "a='x[$(touch pwn1; rm victim)]'; echo $((a))", "denied: cannot-judge"],
  [E, "", "Bash", "echo $((a))", "denied: cannot-judge"],
  [E, "", "Bash", "echo $(( $a + 1 ))", "denied: cannot-judge"],
  [E, "", "Bash", "echo $[a]", "denied: cannot-judge"],
  ["Bash", RM, "Bash", "echo ${X:-$((a))}", "denied: cannot-judge"],
  ["Bash", RM, "Bash", "cat <<EOF\n$((a))\nEOF", "denied: cannot-judge"],
  ["Bash", RM, "Bash", "echo $( (ls) )", "allowed"],
  [E, "", "Bash", "echo $((1 + 2 * (3 - 4)))", "allowed"],
  [E, "", "Bash", "((a++))", "denied: cannot-judge"],
  [E, "", "Bash", "(( 1 ))", "allowed"],
  [E, "", "Bash", "for ((i=0; i<3; i++)); do echo $i; done", "denied: cannot-judge"],
  [E, "", "Bash", "echo ${x[a]}", "denied: cannot-judge"],
  [E, "", "Bash", "echo ${x[$i]}", "denied: cannot-judge"],
  [E, "", "Bash", "echo ${x[@]} ${x[*]} ${x[0]} ${#x[@]}", "allowed"],
  [E, "", "Bash", "x[a]=1", "denied: cannot-judge"],
  [E, "", "Bash", "x=([a]=1)", "denied: cannot-judge"],
  [E, "", "Bash", "x=([0]=1 b)", "allowed"],
  [E, "", "Bash", "echo ${a:a}", "denied: cannot-judge"],
  [E, "", "Bash", "echo ${a:1:n}", "denied: cannot-judge"],
  [E, "", "Bash", "echo ${@:$n}", "denied: cannot-judge"],
  [E, "", "Bash", "echo ${a:1:2} ${a: -1}", "allowed"],
  [E, "", "Bash", "[[ $a -eq 1 ]] && echo y", "denied: cannot-judge"],
  [E, "", "Bash", "[[ 2 -gt 1 ]] && echo y", "allowed"],
  [E, "", "Bash", '[[ "$a" == x ]] && echo y', "allowed"],
  ["Bash(echo:*), Bash([:*)", "", "Bash", "[ $a -eq 1 ] && echo y", "allowed"],
  [E, "", "Bash", "[[ -v a ]] && echo y", "denied: cannot-judge"],
  ["Bash(echo:*), Bash([:*)", "", "Bash", "[ -v a ] && echo y", "denied: cannot-judge"],
  ["Bash(echo:*), Bash(test:*)", "", "Bash", 'test -v "$a" && echo y', "denied: cannot-judge"],
  [E, "", "Bash", "echo ${X@P}", "denied: cannot-judge"],
  [E, "", "Bash", "echo ${X@Q}", "denied: cannot-judge"],
  [E, "", "Bash", "echo ${!X}", "denied: cannot-judge"],
  [E, "", "Bash", "echo ${!X[@]}", "allowed"],
  ["Bash(let:*)", "", "Bash", "let a+1", "denied: cannot-judge"],
  ["Bash(declare:*)", "", "Bash", "declare -i n=a", "denied: cannot-judge"],
  ["Bash(local:*)", "", "Bash", "local -n r=a", "denied: cannot-judge"],
  ["Bash(declare:*)", "", "Bash", "declare 'a[$(rm v)]=1'", "denied: cannot-judge"],
  ["Bash(declare:*)", "", "Bash", "declare x=1", "allowed"],
  ["Bash(printf:*)", "", "Bash", "printf -v 'a[$(rm v)]' %s x", "denied: cannot-judge"],
  ["Bash(printf:*)", "", "Bash", "printf -v x %s y", "denied: cannot-judge"],
  ["Bash(printf:*)", "", "Bash", "printf '%s\\n' x", "allowed"],
  ["Bash(read:*)", "", "Bash", "read 'a[$(rm v)]' < f", "denied: cannot-judge"],
  ["Bash(read:*)", "", "Bash", "read -r line < f", "allowed"],
  ["Bash(unset:*)", "", "Bash", "unset 'a[$(rm v)]'", "denied: cannot-judge"],
  ["Bash(unset:*)", "", "Bash", "unset $n", "denied: cannot-judge"],
  // git as a program runner, under any deny pattern on Bash.
  [G, RM, "Bash", "git config alias.x '!rm victim'", "denied: cannot-judge"],
  [G, RM, "Bash", "git config --global core.pager 'rm v'", "denied: cannot-judge"],
  [G, RM, "Bash", "git config --unset alias.x", "denied: cannot-judge"],
  [G, RM, "Bash", "git config --get user.name", "allowed"],
  [G, RM, "Bash", "git config --list", "allowed"],
  [G, RM, "Bash", "git config -l --show-origin", "allowed"],
  [G, RM, "Bash", "git config get user.name", "allowed"],
  [G, RM, "Bash", "git x", "denied: cannot-judge"],
  [G, "Bash(git push:*)", "Bash", "git p origin HEAD:main", "denied: cannot-judge"],
  [G, "Bash(git push:*)", "Bash", "git $S origin", "denied: cannot-judge"],
  [G, RM, "Bash", "git ls-remote --upload-pack='rm v; git-upload-pack' .", "denied: cannot-judge"],
  [G, RM, "Bash", "git ls-remote -u 'rm v' .", "denied: cannot-judge"],
  [G, RM, "Bash", "git fetch --upload-pa='rm v' origin", "denied: cannot-judge"],
  [G, RM, "Bash", "git fetch $OPT origin", "denied: cannot-judge"],
  [G, RM, "Bash", "git clone -u 'rm v' a b", "denied: cannot-judge"],
  [G, RM, "Bash", "git clone --template=t a b", "denied: cannot-judge"],
  [G, RM, "Bash", "git pull --upload-pack=x", "denied: cannot-judge"],
  [G, RM, "Bash", "git archive --remote=r --exec='rm v' HEAD", "denied: cannot-judge"],
  [G, RM, "Bash", "git push --receive-pack='rm v' origin", "denied: cannot-judge"],
  [G, RM, "Bash", "git send-pack --exec='rm v' r", "denied: cannot-judge"],
  [G, RM, "Bash", "git rebase --exec 'rm v' HEAD~2", "denied: cannot-judge"],
  [G, RM, "Bash", "git rebase -ix 'rm v' HEAD~2", "denied: cannot-judge"],
  [G, RM, "Bash", "git submodule --quiet foreach 'rm v'", "denied: cannot-judge"],
  [G, RM, "Bash", "git bisect run rm v", "denied: cannot-judge"],
  [G, RM, "Bash", "git difftool -x 'rm v'", "denied: cannot-judge"],
  [G, RM, "Bash", "git difftool --extcmd='rm v'", "denied: cannot-judge"],
  [G, RM, "Bash", "git difftool --tool=x", "denied: cannot-judge"],
  [G, RM, "Bash", "git mergetool", "denied: cannot-judge"],
  [G, RM, "Bash", "git grep -O'rm v' x", "denied: cannot-judge"],
  [G, RM, "Bash", "git grep --open-files-in-pager=x y", "denied: cannot-judge"],
  [G, RM, "Bash", "git filter-branch --tree-filter 'rm v' HEAD", "denied: cannot-judge"],
  [G, RM, "Bash", "git subtree add --prefix=x r", "denied: cannot-judge"],
  [G, RM, "Bash", "git -c alias.s='!rm v' s", "denied: cannot-judge"],
  [G, RM, "Bash", "git --config-env=core.pager=X log", "denied: cannot-judge"],
  [G, RM, "Bash", "git status && git log --oneline -5", "allowed"],
  [G, RM, "Bash", "git push -u origin main && git fetch --prune", "allowed"],
  [G, RM, "Bash", "git rebase -i --autosquash HEAD~3", "allowed"],
  [G, RM, "Bash", "git grep -n foo", "allowed"],
  [G, "", "Bash", "git x", "allowed"],
  // A redirection after `cd` lands elsewhere than it reads: a relative one cannot be judged.
  [
    "Bash(cd:*), Bash(echo:*), Write(/proj/out/**)",
    "",
    "Bash",
    "cd /tmp/x && echo pwned > out/x",
    "denied: cannot-judge",
  ],
  [
    "Bash(cd:*), Bash(echo:*), Write(/proj/out/**)",
    "",
    "Bash",
    "cd .. ; echo pwned >> out/x",
    "denied: cannot-judge",
  ],
  [
    "Bash(pushd:*), Bash(echo:*), Write(/proj/out/**)",
    "",
    "Bash",
    "pushd /tmp && echo x > out/x",
    "denied: cannot-judge",
  ],
  ["Bash(cd:*), Bash(echo:*), Write(/proj/out/**)", "", "Bash", "cd /tmp && echo x > /proj/out/x", "allowed"],
  [
    "Bash(cd:*), Bash(echo:*), Write(/proj/out/**)",
    "",
    "Bash",
    "cd /tmp && echo x > /etc/x",
    "denied: no-pattern-matched",
  ],
  ["Bash(cd:*), Bash(echo:*), Write(/proj/out/**)", "", "Bash", "echo x > out/x && cd /tmp", "allowed"],
  [
    "Bash(cd:*), Bash(echo:*), Bash(f), Write(/proj/out/**)",
    "",
    "Bash",
    "f() { cd /tmp; }; f; echo x > out/x",
    "denied: cannot-judge",
  ],
  ["Bash", "Edit(/proj/src/**)", "Bash", "cd src && echo x > f.ts", "denied: cannot-judge"],
  ["Bash", "Edit(/proj/src/**)", "Bash", "$GO src && echo x > f.ts", "denied: cannot-judge"],
  ["Bash", "Edit(/proj/src/**)", "Bash", "cd /tmp && echo x > /proj/src/f.ts", "denied: denied-by-rule"],
  ["Bash", "Edit(/proj/src/**)", "Bash", "cd /tmp && echo x > /tmp/f.ts", "allowed"],
];

const PATHS: Case[] = [
  ["Read(/tmp/**)", "", "Read", "/tmp/a.txt", "allowed"],
  ["Read(/tmp/**)", "", "Read", "/tmp/a/b/c.txt", "allowed"],
  ["Read(/tmp/**)", "", "Read", "/tmp", "allowed"],
  ["Read(/tmp/**)", "", "Read", "/tmp/", "allowed"],
  ["Read(/tmp/**)", "", "Read", "/tmp/.hidden", "allowed"],
  ["Read(/tmp/**)", "", "Read", "/tmp/../etc/passwd", "denied: no-pattern-matched"],
  ["Read(/tmp/**)", "", "Read", "/tmp/a/../../etc/passwd", "denied: no-pattern-matched"],
  ["Read(/tmp/**)", "", "Read", "/tmp/./a.txt", "allowed"],
  ["Read(/tmp/**)", "", "Read", "//tmp//a.txt", "allowed"],
  ["Read(/tmp/**)", "", "Read", "/tmpx/a.txt", "denied: no-pattern-matched"],
  ["Read(/tmp/**)", "", "Read", "/etc/passwd", "denied: no-pattern-matched"],
  ["Read(/tmp/**)", "", "Read", "a.txt", "denied: no-pattern-matched"],
  ["Read(/tmp/**)", "", "Read", "../tmp/a.txt", "allowed"],
  ["Read(/tmp/**)", "", "Read", "", "denied: cannot-judge"],
  ["Read(/tmp/**)", "", "Read", 7, "denied: cannot-judge"],
  ["Read(/tmp/**)", "", "Read", { path: "/tmp/a" }, "denied: cannot-judge"],
  ["Read(/tmp/**)", "", "Read", "/tmp/a\0b", "denied: cannot-judge"],
  ["Read(/tmp/*.log)", "", "Read", "/tmp/app.log", "allowed"],
  ["Read(/tmp/*.log)", "", "Read", "/tmp/.app.log", "allowed"],
  ["Read(/tmp/*.log)", "", "Read", "/tmp/nested/app.log", "denied: no-pattern-matched"],
  ["Read(/tmp/*.log)", "", "Read", "/tmp/app.txt", "denied: no-pattern-matched"],
  ["Read(/tmp/)", "", "Read", "/tmp", "allowed"],
  ["Read(/tmp/)", "", "Read", "/tmp/a", "denied: no-pattern-matched"],
  ["Read(//tmp//**)", "", "Read", "/tmp/a", "allowed"],
  ["Write(/etc/passwd)", "", "Write", "/etc/passwd", "allowed"],
  ["Write(/etc/passwd)", "", "Write", "/etc/passwd.bak", "denied: no-pattern-matched"],
  ["Write(/etc/passwd)", "", "Write", "/etc/../etc/passwd", "allowed"],
  ["Write(/etc/passwd)", "", "Write", "/etc/shadow", "denied: no-pattern-matched"],
  ["Read(src/**)", "", "Read", "/proj/src/a.ts", "allowed"],
  ["Read(src/**)", "", "Read", "src/a.ts", "allowed"],
  ["Read(src/**)", "", "Read", "./src/deep/a.ts", "allowed"],
  ["Read(src/**)", "", "Read", "/other/src/a.ts", "denied: no-pattern-matched"],
  ["Read(src/**)", "", "Read", "src/../secrets.txt", "denied: no-pattern-matched"],
  ["Read(./src/*.ts)", "", "Read", "src/a.ts", "allowed"],
  ["Read(~/notes/**)", "", "Read", "/home/u/notes/a.md", "allowed"],
  ["Read(~/notes/**)", "", "Read", "/home/v/notes/a.md", "denied: no-pattern-matched"],
  ["Read(${PROJECT_DIR}/docs/**)", "", "Read", "/proj/docs/x.md", "allowed"],
  ["Read(${CLAUDE_PROJECT_DIR}/docs/**)", "", "Read", "/proj/docs/x.md", "allowed"],
  ["Read(${SKILL_DIR}/**)", "", "Read", "/proj/skills/x/a.md", "denied: bad-pattern"],
  ["Read(/data/report(1).csv)", "", "Read", "/data/report(1).csv", "allowed"],
  ["Read(/data/report(1).csv)", "", "Read", "/data/report1.csv", "denied: no-pattern-matched"],
  ["Read(/data/**)", "", "Read", "/data/report(1).csv", "allowed"],
  ["Read(/data/**)", "", "Read", "/data/a;b|c&d$e.txt", "allowed"],
  ["Read(!/etc/**)", "", "Read", "/proj/a", "denied: no-pattern-matched"],
  ["Read(/tmp/{a,b}/*)", "", "Read", "/tmp/b/x", "allowed"],
  ["Read(/tmp/{a,b}/*)", "", "Read", "/tmp/c/x", "denied: no-pattern-matched"],
  ["Glob(/proj/**)", "", "Glob", undefined, "allowed"],
  ["Glob(/proj/src/**)", "", "Glob", undefined, "denied: no-pattern-matched"],
  ["Glob(/proj/src/**)", "", "Glob", "src", "allowed"],
  ["Grep(/proj/**)", "", "Grep", "/", "denied: no-pattern-matched"],
  ["Grep(/proj/**)", "", "Grep", "", "denied: cannot-judge"],
  ["Edit(/proj/**)", "", "Edit", "/proj/x", "allowed"],
  ["Edit(/proj/**)", "", "Write", "/proj/x", "denied: not-offered"],
];

const NAMES: Case[] = [
  ["Task(reviewer)", "", "Task", "reviewer", "allowed"],
  ["Task(reviewer)", "", "Agent", "reviewer", "allowed"],
  ["Agent(reviewer)", "", "Task", "reviewer", "allowed"],
  ["Task(reviewer)", "", "Task", "deployer", "denied: no-pattern-matched"],
  ["Task(reviewer)", "", "Task", "", "denied: cannot-judge"],
  ["Task(review-*)", "", "Task", "review-security", "allowed"],
  ["Task(review-*)", "", "Task", "reviewer", "denied: no-pattern-matched"],
  ["Task", "", "Task", "anyone", "allowed"],
  ["Skill(pdf-*)", "", "Skill", "pdf-tools", "allowed"],
  ["Skill(pdf-*)", "", "Skill", "docx", "denied: no-pattern-matched"],
  ["Skill(pdf-*)", "", "Skill", 3, "denied: cannot-judge"],
  ["Skill", "Skill(deploy)", "Skill", "deploy", "denied: denied-by-rule"],
  ["Skill", "Skill(deploy)", "Skill", "pdf", "allowed"],
];

const WEB: Case[] = [
  ["WebFetch(domain:example.com)", "", "WebFetch", "https://example.com/a", "allowed"],
  ["WebFetch(domain:example.com)", "", "WebFetch", "http://EXAMPLE.com./a", "allowed"],
  [
    "WebFetch(domain:example.com)",
    "",
    "WebFetch",
    "https://docs.example.com/a",
    "denied: no-pattern-matched",
  ],
  [
    "WebFetch(domain:example.com)",
    "",
    "WebFetch",
    "https://example.com.evil.io/",
    "denied: no-pattern-matched",
  ],
  [
    "WebFetch(domain:example.com)",
    "",
    "WebFetch",
    "https://evil.io/?example.com",
    "denied: no-pattern-matched",
  ],
  ["WebFetch(domain:example.com)", "", "WebFetch", "https://user@evil.io/", "denied: no-pattern-matched"],
  ["WebFetch(domain:*.example.com)", "", "WebFetch", "https://docs.example.com/", "allowed"],
  ["WebFetch(domain:*.example.com)", "", "WebFetch", "https://example.com/", "denied: no-pattern-matched"],
  ["WebFetch(domain:*.example.com)", "", "WebFetch", "https://badexample.com/", "denied: no-pattern-matched"],
  ["WebFetch(domain:example.com)", "", "WebFetch", "not a url", "denied: cannot-judge"],
  ["WebFetch(domain:example.com)", "", "WebFetch", "", "denied: cannot-judge"],
  ["WebFetch(example.com)", "", "WebFetch", "https://example.com/", "denied: bad-pattern"],
  ["WebFetch", "WebFetch(domain:evil.io)", "WebFetch", "https://evil.io/x", "denied: denied-by-rule"],
  ["WebFetch", "WebFetch(domain:evil.io)", "WebFetch", "https://good.io/x", "allowed"],
];

const LISTS: Case[] = [
  // Name-only next to a pattern of the same tool: the patterns rule.
  ["Read, Read(/tmp/**)", "", "Read", "/tmp/a", "allowed"],
  ["Read, Read(/tmp/**)", "", "Read", "/etc/passwd", "denied: no-pattern-matched"],
  ["Read(/tmp/**), Read", "", "Read", "/etc/passwd", "denied: no-pattern-matched"],
  ["*, Read(/tmp/**)", "", "Read", "/etc/passwd", "denied: no-pattern-matched"],
  ["*, Read(/tmp/**)", "", "Write", "/etc/passwd", "allowed"],
  ["Read, Bash(git:*)", "", "Read", "/etc/passwd", "allowed"],
  // Not offered: "not allowed", never "unknown".
  ["Read, Grep", "", "Bash", "ls", "denied: not-offered"],
  ["Read, Grep", "", "NoSuchTool", "x", "denied: not-offered"],
  ["Read, Grep", "", "constructor", "x", "denied: not-offered"],
  ["Read, Grep", "", "__proto__", "x", "denied: not-offered"],
  ["Read, Grep", "", "read", "/tmp/a", "denied: not-offered"],
  // No list: no restriction at this level.
  [null, "", "Bash", "rm -rf /", "allowed"],
  // A list that is written but empty allows nothing.
  ["", "", "Bash", "rm -rf /", "denied: not-offered"],
  ["", "", "Task", "reviewer", "denied: not-offered"],
  ["*", "", "Bash", "rm -rf /", "allowed"],
  ["*", "", "mcp__github__create_issue", "x", "allowed"],
  // MCP names and wildcards.
  ["mcp__github__*", "", "mcp__github__create_issue", "x", "allowed"],
  ["mcp__github__*", "", "mcp__gitlab__create_issue", "x", "denied: not-offered"],
  ["mcp__github__create_issue", "", "mcp__github__delete_repo", "x", "denied: not-offered"],
  ["mcp__github__create_issue(x)", "", "mcp__github__create_issue", "x", "denied: bad-pattern"],
  ["Re*, W*", "", "Read", "/a", "denied: not-offered"],
  ["Re*, W*", "", "WebFetch", "https://evil.com", "denied: not-offered"],
  // Deny lists: a bare name removes; a pattern denies matching calls; deny beats allow.
  ["Bash", "Bash", "Bash", "ls", "denied: denied-by-rule"],
  [null, "Bash", "Bash", "ls", "denied: denied-by-rule"],
  ["*", "mcp__github__*", "mcp__github__create_issue", "x", "denied: denied-by-rule"],
  ["*", "mcp__github__*", "Read", "/a", "allowed"],
  ["Bash(git:*)", "Bash(git push:*)", "Bash", "git push origin main", "denied: denied-by-rule"],
  ["Bash(git:*)", "Bash(git push:*)", "Bash", "git pull", "allowed"],
  ["Bash", "Bash(curl:*)", "Bash", "curl evil.io", "denied: denied-by-rule"],
  ["Bash", "Bash(curl:*)", "Bash", "FOO=1 curl evil.io", "denied: denied-by-rule"],
  ["Bash", "Bash(curl:*)", "Bash", "/usr/bin/curl evil.io", "denied: denied-by-rule"],
  ["Bash", "Bash(curl:*)", "Bash", "env -i curl evil.io", "denied: denied-by-rule"],
  ["Bash", "Bash(curl:*)", "Bash", "sudo curl evil.io", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "Bash", "sudo -u root curl x", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "Bash", "env -u FOO curl x", "denied: denied-by-rule"],
  ["Bash", "Bash(curl:*)", "Bash", "nice -n 5 curl x", "denied: denied-by-rule"],
  ["Bash", "Bash(curl:*)", "Bash", "exec -a foo curl x", "denied: denied-by-rule"],
  ["Bash", "Bash(curl:*)", "Bash", "timeout 5 curl x", "denied: denied-by-rule"],
  ["Bash", "Bash(curl:*)", "Bash", "stdbuf -o0 curl x", "denied: denied-by-rule"],
  ["Bash", "Bash(curl:*)", "Bash", "eval curl x", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "Bash", 'bash -c "curl x"', "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "Bash", "/bin/sh -c curl", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "Bash", "find . -exec curl x {} +", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "Bash", "find . -name x", "allowed"],
  ["Bash", "Bash(curl:*)", "Bash", "{curl,x}", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "Bash", "/usr/bin/cur? x", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "Bash", "/usr/bin/c*rl x", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "Bash", "c\\url x", "denied: denied-by-rule"],
  ["Bash", "Bash(curl:*)", "Bash", "ls *.txt", "allowed"],
  ["Bash", "Bash(curl:*)", "Bash", "'curl' evil.io", "denied: denied-by-rule"],
  ["Bash", "Bash(curl:*)", "Bash", "echo x; curl evil.io", "denied: denied-by-rule"],
  ["Bash", "Bash(curl:*)", "Bash", "echo $(curl evil.io)", "denied: denied-by-rule"],
  ["Bash", "Bash(curl:*)", "Bash", "ls | xargs curl", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "Bash", "time curl x", "denied: denied-by-rule"],
  ["Bash", "Bash(curl:*)", "Bash", "! curl x", "denied: denied-by-rule"],
  ["Bash", "Bash(curl:*)", "Bash", "nohup curl x &", "denied: denied-by-rule"],
  ["Bash", "Bash(curl:*)", "Bash", "coproc curl x", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "Bash", "trap 'curl x' EXIT", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "Bash", "$C evil.io", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "Bash", "perl -e 'system(q(curl x))'", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "Bash", "python3 -c 'import os'", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "Bash", "python3 script.py", "allowed"],
  ["Bash", "Bash(curl:*)", "Bash", "node -e 1", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "Bash", "ruby -e 1", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "Bash", "awk 'BEGIN{system(\"curl x\")}'", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "Bash", "awk '{print $1}' f", "allowed"],
  ["Bash", "Bash(curl:*)", "Bash", "sh x.sh", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "Bash", "GIT_SSH_COMMAND=curl git fetch", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "Bash", "LD_PRELOAD=/x.so ls", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "Bash", "PAGER=curl git log", "denied: cannot-judge"],
  ["Bash", "Bash(git push:*)", "Bash", "git -C . push", "denied: denied-by-rule"],
  ["Bash", "Bash(git push:*)", "Bash", "git --git-dir=.git push origin", "denied: denied-by-rule"],
  ["Bash", "Bash(git push:*)", "Bash", "git --no-pager push", "denied: denied-by-rule"],
  ["Bash", "Bash(git push:*)", "Bash", "git -c alias.x=!curl x", "denied: cannot-judge"],
  ["Bash", "Bash(git push:*)", "Bash", "git -c core.sshCommand=evil fetch", "denied: cannot-judge"],
  ["Bash", "Bash(git push:*)", "Bash", "git --exec-path=/tmp status", "denied: cannot-judge"],
  ["Bash", "Bash(git push:*)", "Bash", "git $X push", "denied: cannot-judge"],
  ["Bash", "Bash(git push:*)", "Bash", "git status", "allowed"],
  ["Bash", "Bash(git push:*)", "Bash", "git log --grep push", "allowed"],
  ["Bash", "Bash(npm publish:*)", "Bash", "npm --registry x publish", "denied: cannot-judge"],
  ["Bash", "Bash(git push:*)", "Bash", "echo ok > /dev/null && git push", "denied: denied-by-rule"],
  ["Bash", "Bash(curl:*)", "Bash", "ls -la", "allowed"],
  ["Bash", "Bash(curl:*)", "Bash", "", "denied: cannot-judge"],
  ["Read", "Read(/etc/**)", "Read", "/etc/passwd", "denied: denied-by-rule"],
  ["Read", "Read(/etc/**)", "Read", "/tmp/../etc/passwd", "denied: denied-by-rule"],
  ["Read", "Read(/etc/**)", "Read", "/tmp/x", "allowed"],
  ["Read(/etc/**)", "Read(/etc/shadow)", "Read", "/etc/shadow", "denied: denied-by-rule"],
  ["Read(/etc/**)", "Read(/etc/shadow)", "Read", "/etc/hosts", "allowed"],
  ["Read", "Read(${SKILL_DIR}/x)", "Read", "/tmp/x", "denied: bad-pattern"],
  ["Read", "Task", "Read", "/tmp/x", "allowed"],
];

const ALL: Case[] = [...BASH, ...HIDDEN, ...PATHS, ...NAMES, ...WEB, ...LISTS];

describe("decide: one line per case", () => {
  it.each(ALL)("%s | deny %s | %s(%j) → %s", (allow, deny, tool, value, expected) => {
    expect(judge(list(allow, deny || undefined), tool, inputFor(tool, value))).toBe(expected);
  });
});

// [caller, callee, tool, value, expected]: the effective list is caller ∩ callee.
type HopCase = [caller: string | null, callee: string | null, tool: string, value: unknown, expected: string];

const HOPS: HopCase[] = [
  ["Bash(git:*)", "Bash(git status)", "Bash", "git status", "allowed"],
  ["Bash(git:*)", "Bash(git status)", "Bash", "git log", "denied: no-pattern-matched"],
  ["Bash(git:*)", "Bash(npm:*)", "Bash", "npm test", "denied: not-offered"],
  ["Bash(git:*)", "Bash(npm:*)", "Bash", "git status", "denied: not-offered"],
  ["Bash(git:*)", "Bash", "Bash", "git status", "allowed"],
  ["Bash(git:*)", "Bash", "Bash", "rm -rf /", "denied: no-pattern-matched"],
  ["Bash", "Bash(rm:*)", "Bash", "rm -rf x", "allowed"],
  ["Bash(git:*)", "Bash(rm:*)", "Bash", "rm -rf x", "denied: not-offered"],
  ["Read(/tmp/**)", "Read", "Read", "/etc/passwd", "denied: no-pattern-matched"],
  ["Read(/tmp/**)", "Read(/tmp/a/**)", "Read", "/tmp/a/x", "allowed"],
  ["Read(/tmp/**)", "Read(/tmp/a/**)", "Read", "/tmp/b/x", "denied: no-pattern-matched"],
  ["Read(/tmp/**)", "Read(/var/**)", "Read", "/var/x", "denied: not-offered"],
  ["Read(/tmp/*.log)", "Read(/tmp/a*)", "Read", "/tmp/a.log", "allowed"],
  ["Read(/tmp/*.log)", "Read(/tmp/a*)", "Read", "/tmp/b.log", "denied: no-pattern-matched"],
  ["Read(/tmp/*.log)", "Read(/tmp/a*)", "Read", "/tmp/a.txt", "denied: no-pattern-matched"],
  ["Read, Grep", "Read, Write", "Write", "/tmp/x", "denied: not-offered"],
  ["Read, Grep", "Read, Write", "Read", "/tmp/x", "allowed"],
  ["Read, Grep", null, "Grep", "/tmp", "allowed"],
  [null, "Read", "Grep", "/tmp", "denied: not-offered"],
  ["*", "Task(reviewer)", "Task", "reviewer", "allowed"],
  ["Task(reviewer)", "Task", "Task", "deployer", "denied: no-pattern-matched"],
  ["Task(review-*)", "Task(reviewer)", "Task", "reviewer", "denied: not-offered"],
  ["Task(review-*)", "Task(review-x)", "Task", "review-x", "allowed"],
  ["mcp__github__*", "mcp__github__create_issue", "mcp__github__create_issue", "x", "allowed"],
  ["mcp__github__*", "mcp__github__create_issue", "mcp__github__delete_repo", "x", "denied: not-offered"],
  ["*, Read(/tmp/**)", "Read", "Read", "/etc/x", "denied: no-pattern-matched"],
  [
    "WebFetch(domain:a.io)",
    "WebFetch(domain:b.io)",
    "WebFetch",
    "https://a.io/",
    "denied: no-pattern-matched",
  ],
];

describe("intersect: caller ∩ callee, one line per case", () => {
  it.each(HOPS)("%s ∩ %s | %s(%j) → %s", (caller, callee, tool, value, expected) => {
    const effective = intersect(list(caller), list(callee));
    expect(judge(effective, tool, inputFor(tool, value))).toBe(expected);
  });

  it("simplifies where exact, and keeps both constraints where not", () => {
    const texts = (a: string, b: string) =>
      (intersect(list(a), list(b)).rules ?? []).map((r) => r.constraints.map((c) => c.text).join(" ∧ "));
    expect(texts("Bash(git:*)", "Bash(git status)")).toEqual(["git status"]);
    expect(texts("Bash(git:*)", "Bash(npm:*)")).toEqual([]);
    expect(texts("Bash(git:*)", "Bash(git diff:*)")).toEqual(["git diff:*"]);
    expect(texts("Read(/tmp/**)", "Read(/tmp/a/*.log)")).toEqual(["/tmp/a/*.log"]);
    expect(texts("Read(/tmp/*.log)", "Read(/tmp/a*)")).toEqual(["/tmp/*.log ∧ /tmp/a*"]);
    expect(texts("Read(/tmp/**)", "Read(/var/**)")).toEqual([]);
  });

  it("unions deny lists, so a deny at the top reaches every descendant", () => {
    const chain = [list("Bash", "Bash(curl:*)"), list("Bash"), list("Bash(curl:*), Bash(ls:*)")];
    const effective = chain.reduce(intersect);
    expect(judge(effective, "Bash", inputFor("Bash", "curl x"))).toBe("denied: denied-by-rule");
    expect(judge(effective, "Bash", inputFor("Bash", "ls"))).toBe("allowed");
  });

  it("says that nothing survives an empty intersection, and never reads it as unrestricted", () => {
    const effective = intersect(list("Read"), list("Write"));
    expect(effective.rules).toEqual([]);
    expect(judge(effective, "Read", inputFor("Read", "/a"))).toBe("denied: not-offered");
    expect(judge(effective, "Write", inputFor("Write", "/a"))).toBe("denied: not-offered");
  });
});

describe("denial sentences", () => {
  const sentence = (allow: string, deny: string | undefined, tool: string, value: unknown) => {
    const d = decide(list(allow, deny), { tool, input: inputFor(tool, value) }, JUDGED);
    return d.kind === "denied" ? denialText(d) : "allowed";
  };

  it("explains each reason to the model and the user", () => {
    expect(sentence("Read", undefined, "Bash", "ls")).toBe(
      "Bash is not allowed in this run. The tool was not executed.",
    );
    expect(sentence("Bash(git:*)", undefined, "Bash", "rm -rf x")).toBe(
      "Bash(rm -rf x) is not allowed: this run allows Bash only for: git:*. The tool was not executed.",
    );
    expect(sentence("Bash(git:*)", undefined, "Bash", "git status; rm -rf /")).toBe(
      "Bash(git status; rm -rf /) is not allowed: its command 'rm -rf /' matches none of the patterns: this run allows Bash only for: git:*. The tool was not executed.",
    );
    expect(sentence("Bash(git:*)", undefined, "Bash", "$CMD x")).toBe(
      "Bash($CMD x) cannot be judged: its program is not plain text (the shell expands it); this run allows Bash only for: git:*. The tool was not executed.",
    );
    expect(sentence("Bash(git:*), Write(/proj/out/**)", undefined, "Bash", "git log > /etc/x")).toBe(
      "Bash(git log > /etc/x) writes /etc/x by redirection, judged as a Write: Write(/etc/x) is not allowed: this run allows Write only for: /proj/out/**. The tool was not executed.",
    );
    expect(sentence("Bash(git:*)", undefined, "Bash", "")).toBe(
      "Bash call cannot be judged: its 'command' is missing, empty or not text, and this run allows Bash only for: git:*. The tool was not executed.",
    );
    expect(sentence("Bash", "Bash(git push:*)", "Bash", "git push")).toBe(
      "Bash(git push) is denied by 'Bash(git push:*)' in agent.md:1. The tool was not executed.",
    );
    expect(sentence("Read", "Read", "Read", "/a")).toBe(
      "Read is not allowed: 'Read' in agent.md:1 removes it. The tool was not executed.",
    );
  });

  it("never throws on hostile input", () => {
    for (const input of [
      null,
      undefined,
      3,
      "str",
      [],
      { command: { toString: () => "x" } },
      Object.create(null),
    ]) {
      const d = decide(
        list("Bash(git:*), Read(/tmp/**)"),
        { tool: "Bash", input },
        { specs: SPECS, cwd: CWD },
      );
      expect(d.kind).toBe("denied");
    }
  });
});

describe("a tool removed takes its family with it", () => {
  it.each([
    ["Read", ["Write", "Edit", "Bash"]],
    ["Edit", ["Read", "Glob", "Grep", "LS", "Bash"]],
    ["Read(/proj/.env)", ["Read", "Write", "Edit", "Glob", "Grep", "LS", "Bash"]],
  ])("disallowed-tools: %s offers %j", (deny, expected) => {
    const l = list(null, deny);
    expect(
      offered(l, ["Read", "Write", "Edit", "Glob", "Grep", "LS", "MultiEdit", "Bash"]).filter(
        (t) => t !== "MultiEdit" && t !== "NotebookEdit",
      ),
    ).toEqual(expected);
    if (deny === "Read") expect(judge(l, "Grep", { pattern: "x" })).toBe("denied: denied-by-rule");
  });
});
