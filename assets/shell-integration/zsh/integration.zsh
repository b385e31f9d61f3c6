# Switchboard: the marks of src/core/marks.ts for zsh. Sourced by our .zshrc after the person's,
# and typed back in by the session as
#   ` builtin source <this file> --rearm <nonce> $?`
# when the shell is at its prompt without them (docs/design.md §2.5): everything is installed
# again (idempotently), and the status of the command before is reported in OSC 633;R.

typeset -g __sb_rearm_st=''
if [[ ${1-} == --rearm ]]; then
  typeset -g __sb_nonce=${2-} __sb_rearm_st=${3-} __sb_rearm_line=1
else
  typeset -g __sb_rearm_line=0
fi

if [[ -n $__sb_nonce ]]; then
  typeset -g __sb_ran=0 __sb_ps1=''

  # VS Code's escaping for OSC 633;E: `\` -> `\\`, `;` and chars < 0x20 -> \xNN. Sets REPLY.
  __sb_escape() {
    emulate -L zsh
    local LC_ALL=C s=$1 i
    s=${s//\\/\\\\}
    s=${s//;/\\x3b}
    if [[ $s == *[[:cntrl:]]* ]]; then
      for ((i = 1; i < 32; i++)); do s=${s//${(#)i}/\\x${(l:2::0:)$(( [##16] i ))}}; done
    fi
    REPLY=$s
  }

  # OSC 7 with $PWD percent-encoded byte by byte.
  __sb_cwd() {
    emulate -L zsh
    local LC_ALL=C p=$PWD out='' c i
    if [[ $p == *[^A-Za-z0-9/._~-]* ]]; then
      for ((i = 1; i <= ${#p}; i++)); do
        c=${p[i]}
        if [[ $c == [A-Za-z0-9/._~-] ]]; then out+=$c; else out+=%${(l:2::0:)$(( [##16] #c ))}; fi
      done
    else
      out=$p
    fi
    printf '\e]7;file://%s%s\a' "$HOST" "$out"
  }

  # preexec runs only for a non-empty command line; $1 is the line as typed.
  __sb_preexec() {
    emulate -L zsh
    __sb_ran=1
    __sb_escape "$1"
    printf '\e]633;E;%s;%s\a\e]133;C;nonce=%s\a' "$REPLY" "$__sb_nonce" "$__sb_nonce"
  }

  # Must run before other precmd functions: $? is still the command's own status here.
  __sb_precmd() {
    local st=$?
    emulate -L zsh
    if (( __sb_ran )); then
      __sb_ran=0
      __sb_cwd
      printf '\e]133;D;%s;nonce=%s\a' "$st" "$__sb_nonce"
    fi
    # zsh draws PROMPT_SP (the `%` after output without a final newline) before precmd, i.e.
    # inside the command's output; we turned it off and draw the same thing after D instead.
    if (( __sb_promptsp )); then
      local mark=${PROMPT_EOL_MARK-%B%S%#%s%b}
      local plain=${(%)${mark//\%[BbSsUu]/}}
      printf '%s%*s\r%*s\r' "${(%)mark}" $(( COLUMNS - 1 )) '' ${#plain} ''
    fi
    # Empty Enter / Ctrl-C at the prompt: preexec did not run, so neither C nor D.
    return st
  }

  typeset -g __sb_amark="%{"$'\e]133;A;nonce='"$__sb_nonce"$'\a'"%}"
  typeset -g __sb_bmark="%{"$'\e]133;B;nonce='"$__sb_nonce"$'\a'"%}"

  # Runs after the person's precmd hooks, which may rebuild PS1 (themes do): wrap it in A/B,
  # inside %{ %} so zle does not count them as visible characters. RPROMPT is left alone. Our
  # marks are taken out first: a virtualenv's activate prefixes PS1 as it finds it.
  __sb_prompt() {
    local st=$?
    emulate -L zsh
    if [[ $PS1 != "$__sb_ps1" ]]; then
      local p=${PS1//$__sb_amark/}
      p=${p//$__sb_bmark/}
      __sb_ps1="$__sb_amark$p$__sb_bmark"
      PS1=$__sb_ps1
      typeset +x PS1 # activate exports it; ours holds the nonce
    fi
    return st
  }

  # Our hook entries, back in place when the person's code replaced the arrays
  # (`precmd_functions=()`, a framework resetting them): __sb_precmd first (the command's $?),
  # __sb_prompt last (PS1), __sb_preexec anywhere.
  __sb_hook() {
    emulate -L zsh
    if (( ! ${precmd_functions[(Ie)__sb_precmd]} || ! ${precmd_functions[(Ie)__sb_prompt]} )); then
      precmd_functions=(__sb_precmd ${precmd_functions:#__sb_(precmd|prompt)} __sb_prompt)
    fi
    (( ${preexec_functions[(Ie)__sb_preexec]} )) || preexec_functions+=(__sb_preexec)
  }

  if (( ! ${+__sb_promptsp} )); then # once per process (an exec'd zsh re-armed has none yet)
    typeset -g __sb_promptsp=0
    if [[ -o promptsp && -o promptcr ]]; then
      __sb_promptsp=1
      unsetopt promptsp
    fi
  fi

  typeset -ga precmd_functions preexec_functions
  __sb_hook
  # zsh calls the plain `precmd` and `preexec` functions before it reads the hook arrays, so
  # these put our entries back in time for the very prompt (or command) after a reset; $? is
  # the command's status in every hook. Only when the person has no such function of their own.
  if (( ! $+functions[precmd] )) || [[ $functions[precmd] == *__sb_hook* ]]; then
    precmd() { __sb_hook }
  fi
  if (( ! $+functions[preexec] )) || [[ $functions[preexec] == *__sb_hook* ]]; then
    preexec() { __sb_hook }
  fi
  # Wrapped PS1 embeds the nonce: never pass it to child processes.
  typeset +x PS1
  __sb_prompt
  __sb_cwd # before the first prompt: OSC 7, then A ... B
  if (( __sb_rearm_line )); then
    # This line is a command of its own: it gets no D; the one before it is reported as R.
    __sb_ran=0
    printf '\e]633;R;%s;%s\a' "$__sb_rearm_st" "$__sb_nonce"
  fi
fi
unset __sb_rearm_st __sb_rearm_line
