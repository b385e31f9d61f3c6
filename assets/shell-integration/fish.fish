# Switchboard shell integration for fish: `fish --init-command 'source <this file>'`.
# fish has already read the person's config when this runs. Prints the marks of src/core/marks.ts.
# The session types ` source <this file> --rearm <nonce> $status` into a fish at its prompt
# without them (`exec fish`; docs/design.md §2.5): all is installed again, and the status of the
# command before is reported in OSC 633;R.

set -g __sb_rearm_st
if test "$argv[1]" = --rearm
    set -g __sb_nonce $argv[2]
    set __sb_rearm_st $argv[3]
else
    # Take the nonce out of the environment so no child process sees it.
    set -g __sb_nonce $SWITCHBOARD_NONCE
    set -e SWITCHBOARD_NONCE
end

if test -n "$__sb_nonce"
    set -g __sb_ran 0

    # OSC 7; fish's url style percent-encodes everything but [A-Za-z0-9/._~-].
    function __sb_cwd
        printf '\e]7;file://%s%s\a' $hostname (string escape --style=url -- $PWD)
    end

    # VS Code's escaping for OSC 633;E: `\` -> `\\`, `;` and chars < 0x20 -> \xNN.
    function __sb_escape
        # Backslashes first (the escapes we add contain one). `string join` then rejoins the
        # lines with \x0a, so the text is one line and survives command substitution.
        set -l s (string replace -a -- '\\' '\\\\' $argv[1] | string join '\x0a')
        set s (string replace -a -- ';' '\x3b' $s)
        if string match -qr -- '[\x01-\x1f]' $s
            for i in (seq 1 31)
                set -l h (printf '%02x' $i)
                set s (string replace -a -- (printf "\\x$h") "\\x$h" $s)
            end
        end
        printf '%s' $s
    end

    # Not emitted for an empty command line, so an empty Enter prints neither C nor D.
    # Handlers in a function of their own, so __sb_guard can define them again once erased.
    function __sb_handlers
        function __sb_preexec --on-event fish_preexec
            string length -q -- (string trim -- $argv[1]); or return
            set -g __sb_ran 1
            printf '\e]633;E;%s;%s\a\e]133;C;nonce=%s\a' (__sb_escape $argv[1]) $__sb_nonce $__sb_nonce
        end

        function __sb_postexec --on-event fish_postexec
            set -l st $status # first thing: the command's own status
            __sb_done $st
        end
    end

    # OSC 7 and D, once per command.
    function __sb_done
        test "$__sb_ran" = 1; or return
        set -g __sb_ran 0
        __sb_cwd
        printf '\e]133;D;%s;nonce=%s\a' $argv[1] $__sb_nonce
    end

    function __sb_set_status
        return $argv[1]
    end

    # Wrap the person's prompt in A/B. Their prompt still sees the command's $status.
    function __sb_wrap_prompt
        set -l now (functions fish_prompt | string collect)
        if test "$__sb_prompt_body" = "$now"
            return # ours already (re-arming this same fish)
        end
        if functions -q fish_prompt
            functions -e __sb_user_prompt
            functions --copy fish_prompt __sb_user_prompt
        else
            function __sb_user_prompt
                printf '> '
            end
        end
        function fish_prompt
            set -l st $status
            printf '\e]133;A;nonce=%s\a' $__sb_nonce
            __sb_set_status $st
            __sb_user_prompt
            printf '\e]133;B;nonce=%s\a' $__sb_nonce
        end
        set -g __sb_prompt_body (functions fish_prompt | string collect)
    end

    # Before every prompt (the fish_prompt event comes before fish_prompt is called): what an
    # agent or a config erased or replaced is put back: the handlers (`functions -e`; the D the
    # erased one missed is printed here), and the wrapper (`functions -e fish_prompt` brings back
    # fish's default prompt, a new `function fish_prompt` the person's own: both get wrapped).
    function __sb_guard --on-event fish_prompt
        set -l st $status
        if not functions -q __sb_postexec; or not functions -q __sb_preexec
            __sb_handlers
            __sb_done $st
        end
        # Empty once erased: `functions` does not autoload fish's default (`functions -q` does).
        set -l now (functions fish_prompt | string collect)
        if test "$__sb_prompt_body" != "$now"
            __sb_wrap_prompt
        end
    end

    __sb_handlers
    __sb_wrap_prompt
    __sb_cwd # before the first prompt: OSC 7, then A ... B
    if test -n "$argv[1]"; and test "$argv[1]" = --rearm
        # This line is a command of its own: it gets no D; the one before it is reported as R.
        set -g __sb_ran 0
        printf '\e]633;R;%s;%s\a' "$__sb_rearm_st" $__sb_nonce
    end
end
set -e __sb_rearm_st
