#!/usr/bin/env python3
"""Builds chat-template test cases for the transformers oracle (chat_template_oracle.py) and yieldtok's
differential test.

Cases cover the qwen3, llama3_1, gemma3 and deepseek_v3 templates of the fixture tokenizer folders:
conversations from the tau-bench airline data when its folder exists (--data, default: ../shared/data relative to the
repository when present), and self-made conversations always (so the test runs without that folder): with and without
a system prompt, multi-turn, tool schemas, tool calls whose arguments are JSON strings / objects / a mix, parallel
tool calls, tool results, add_generation_prompt, enable_thinking true/false/absent, reasoning as reasoning_content /
thinking / reasoning / <think> tags, unicode, odd whitespace, literal {{ }} and HTML-like text, content given as a
list of parts, continue_final_message, and inputs that must raise. Plus small self-made templates: single-feature
micro templates (Python string methods, tojson options, float printing, loop controls, ...) and templates with
{% generation %} blocks (cases ask for the assistant token mask).

template_dir values are folder names relative to the fixtures folder given to the oracle (--fixtures).

Usage: python make_chat_cases.py OUT.json [--data DIR] [--variants N] [--max-conversations N] [--seed S]
"""

import argparse
import copy
import json
import os
import random
import sys

TEMPLATES = ["qwen3", "llama3_1", "gemma3", "deepseek_v3"]

# ---------------------------------------------------------------------------------------------------------------------
# self-made data

WEATHER_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the weather for a city, e.g. 'Paris' or \"Zürich\" <b>bold</b> & more.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City name, e.g. 'Tōkyō'"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
                    "days": {"type": "integer", "minimum": 1, "maximum": 14},
                    "threshold": {"type": "number", "default": 0.5, "multipleOf": 1e-07},
                },
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Search the web.\nReturns a list of results.",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string"}, "filters": {"type": "object", "properties": {}}},
                "required": ["query"],
            },
        },
    },
]

UNICODE_TEXTS = [
    "Bonjour, ça va? Größe: 5 m², naïve café — “quotes” ‘single’ …",
    "日本語のテキストです。中文测试。한국어 텍스트.",
    "مرحبا بالعالم — שלום עולם",
    "Emoji: 😀👍🏽👨‍👩‍👧‍👦🇫🇷 and math: ∑∫√∞ ≠ ≤",
    "Combining: e\u0301 a\u0308 n\u0303; ZWJ\u200dZWSP\u200bBOM\ufeff",
    "NBSP:\u00a0|IDEO:\u3000|LS:\u2028|PS:\u2029|NEL:\u0085|thin:\u2009",
    "\u001cinfo separators\u001d around\u001e text\u001f",
    "Greek: ΟΔΟΣ σοφία, Turkish: İstanbul ıI, German: STRASSE straße",
]

ODD_WHITESPACE = [
    "  leading and trailing spaces  ",
    "\n\nleading newlines\n\n",
    "\ttabs\tinside\t",
    "windows\r\nline\r\nendings\r\n",
    "",
    " ",
    "\u001c\u001f",
    "line1\n\n\nline3",
]

LITERAL_TEXTS = [
    "Template-like: {{ messages }} {% if x %}y{% endif %} {# c #}",
    "HTML-ish: <b>bold</b> &amp; <script>alert('x')</script> 'single' \"double\"",
    "Backslashes \\n \\t \\\\ and JSON {\"a\": [1, 2]}",
    "<think>literal think tag in user text</think>",
    "<tool_call>\n{\"name\": \"x\"}\n</tool_call>",
]

DICT_ARGS = [
    {"city": "Paris"},
    {"city": "Zürich", "unit": "celsius", "days": 3},
    {"query": "it's \"quoted\" <b>&</b>", "filters": {}},
    {"nested": {"list": [1, 2.5, 1e-07, 1e16, 1e20, -0.0, True, False, None], "empty": [], "obj": {"k": "v"}}},
    {"big": 12345678901234567890, "neg": -42, "float": 0.1, "sci": 2.5e-05, "f": 100.0},
    {"unicode": "日本 😀", "ctrl": "a\u0001b\u001fc\u007fd", "esc": "\n\t\\\""},
]


def tool_call(name, args, as_string, call_id="call_1"):
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args) if as_string else args},
    }


def self_made_conversations():
    """(label, messages, tools) triples."""
    convs = []
    convs.append(("simple", [{"role": "user", "content": "Hello!"}], None))
    convs.append(
        (
            "system_multi_turn",
            [
                {"role": "system", "content": "You are a helpful assistant."},
                {"role": "user", "content": "What is 2+2?"},
                {"role": "assistant", "content": "4"},
                {"role": "user", "content": "And 3+3?"},
            ],
            None,
        )
    )
    convs.append(
        (
            "ends_on_assistant",
            [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello! How can I help?"},
            ],
            None,
        )
    )
    for i, text in enumerate(UNICODE_TEXTS):
        convs.append(
            (
                f"unicode_{i}",
                [
                    {"role": "system", "content": f"System {text}"},
                    {"role": "user", "content": text},
                    {"role": "assistant", "content": f"Echo: {text}"},
                    {"role": "user", "content": text[::-1]},
                ],
                None,
            )
        )
    for i, text in enumerate(ODD_WHITESPACE):
        convs.append(
            (
                f"whitespace_{i}",
                [
                    {"role": "user", "content": text},
                    {"role": "assistant", "content": text},
                    {"role": "user", "content": "x" + text + "y"},
                ],
                None,
            )
        )
    for i, text in enumerate(LITERAL_TEXTS):
        convs.append(
            (
                f"literal_{i}",
                [
                    {"role": "system", "content": text},
                    {"role": "user", "content": text},
                    {"role": "assistant", "content": text},
                    {"role": "user", "content": "ok"},
                ],
                None,
            )
        )
    # tool calls with string / dict / mixed arguments, parallel calls, tool results
    for mode in ["string", "dict", "mixed"]:
        msgs = [
            {"role": "system", "content": "Use tools when needed."},
            {"role": "user", "content": "Weather in Paris and Zürich? Also search."},
        ]
        for i, args in enumerate(DICT_ARGS):
            as_string = mode == "string" or (mode == "mixed" and i % 2 == 0)
            msgs.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [tool_call("get_weather", args, as_string, f"call_{i}")],
                }
            )
            msgs.append(
                {"role": "tool", "tool_call_id": f"call_{i}", "name": "get_weather", "content": json.dumps({"ok": i})}
            )
        msgs.append({"role": "assistant", "content": "Done: sunny."})
        msgs.append({"role": "user", "content": "Thanks"})
        convs.append((f"tools_{mode}", msgs, WEATHER_TOOLS))
    convs.append(
        (
            "parallel_calls",
            [
                {"role": "user", "content": "Weather in Paris and Rome?"},
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        tool_call("get_weather", {"city": "Paris"}, True, "a"),
                        tool_call("get_weather", {"city": "Rome"}, False, "b"),
                    ],
                },
                {"role": "tool", "tool_call_id": "a", "content": "{\"temp\": 21.5}"},
                {"role": "tool", "tool_call_id": "b", "content": "{\"temp\": 25}"},
            ],
            WEATHER_TOOLS,
        )
    )
    convs.append(
        (
            "tool_call_with_content",
            [
                {"role": "user", "content": "Search cats"},
                {
                    "role": "assistant",
                    "content": "Let me search.",
                    "tool_calls": [tool_call("search", {"query": "cats"}, False)],
                },
                {"role": "tool", "tool_call_id": "call_1", "content": "<tool_response>cats</tool_response>"},
                {"role": "assistant", "content": "Cats are great."},
            ],
            WEATHER_TOOLS,
        )
    )
    # reasoning in its different spellings
    for field in ["reasoning_content", "thinking", "reasoning"]:
        convs.append(
            (
                f"reasoning_{field}",
                [
                    {"role": "user", "content": "Think about 2+2"},
                    {"role": "assistant", "content": "4", field: "\nLet me add: 2+2=4.\n"},
                    {"role": "user", "content": "And 3+3?"},
                    {"role": "assistant", "content": "6", field: "3+3 is 6"},
                ],
                None,
            )
        )
    convs.append(
        (
            "reasoning_think_tags",
            [
                {"role": "user", "content": "Q1"},
                {"role": "assistant", "content": "<think>\nreasoning one\n</think>\n\nAnswer one"},
                {"role": "user", "content": "Q2"},
                {"role": "assistant", "content": "<think>reasoning two</think>Answer two"},
            ],
            None,
        )
    )
    convs.append(
        (
            "reasoning_null_and_present",
            [
                {"role": "user", "content": "Q"},
                {"role": "assistant", "content": "A", "reasoning_content": None, "thinking": "T"},
            ],
            None,
        )
    )
    # content as a list of parts
    convs.append(
        (
            "content_parts",
            [
                {"role": "system", "content": [{"type": "text", "text": "Sys part"}]},
                {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": " Describe  "}]},
                {"role": "assistant", "content": [{"type": "text", "text": "A picture."}]},
                {"role": "user", "content": [{"type": "text", "text": "More"}, {"type": "text", "text": "please"}]},
            ],
            None,
        )
    )
    convs.append(
        (
            "multiple_system",
            [
                {"role": "system", "content": "First system."},
                {"role": "system", "content": "Second system."},
                {"role": "user", "content": "Hi"},
            ],
            None,
        )
    )
    convs.append(
        (
            "extra_keys",
            [
                {"role": "user", "content": "Hi", "name": "alice", "metadata": {"x": 1}},
                {"role": "assistant", "content": "Hello", "tool_calls": []},
                {"role": "user", "content": "Bye", "tool_calls": None},
            ],
            None,
        )
    )
    return convs


def error_cases():
    """(label, messages, tools, extra) that should raise in at least some templates."""
    return [
        ("err_empty", [], None, {}),
        ("err_not_dict", ["hello"], None, {}),
        ("err_starts_with_assistant", [{"role": "assistant", "content": "Hi"}, {"role": "user", "content": "x"}], None, {}),
        ("err_two_users", [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}], None, {}),
        (
            "err_content_null_tool_call",
            [
                {"role": "user", "content": "x"},
                {"role": "assistant", "content": None, "tool_calls": [tool_call("search", {"query": "q"}, True)]},
            ],
            WEATHER_TOOLS,
            {},
        ),
        ("err_content_null_plain", [{"role": "user", "content": "x"}, {"role": "assistant", "content": None}], None, {}),
        ("err_no_content", [{"role": "user"}], None, {}),
        ("err_content_int", [{"role": "user", "content": 42}], None, {}),
        ("err_tools_not_list", [{"role": "user", "content": "x"}], ["not a dict"], {}),
        ("err_continue_and_agp", [{"role": "user", "content": "x"}], None, {"continue_final_message": True, "add_generation_prompt": True}),
        ("err_continue_missing", [{"role": "user", "content": "x"}, {"role": "assistant"}], None, {"continue_final_message": True}),
    ]


# ---------------------------------------------------------------------------------------------------------------------
# micro templates (one construct each) and generation templates

MICRO_TEMPLATES = {
    "py_split": "{% for m in messages %}{{ m.content.split() }}|{{ m.content.split(' ', 1) }}|{{ m.content.rsplit(None, 1) }}|{{ m.content.splitlines() }}|{{ m.content.splitlines(true) }}\n{% endfor %}",
    "py_strip": "{% for m in messages %}[{{ m.content.strip() }}][{{ m.content.lstrip() }}][{{ m.content.rstrip() }}][{{ m.content.strip('xy\n ') }}][{{ m.content | trim }}]\n{% endfor %}",
    "py_title": "{% for m in messages %}{{ m.content.title() }}|{{ m.content.upper() }}|{{ m.content.lower() }}|{{ m.content.startswith('x') }}|{{ m.content.endswith(('y', 'z')) }}|{{ m.content.isspace() }}\n{% endfor %}",
    "py_replace_find": "{% for m in messages %}{{ m.content.replace(' ', '_') }}|{{ m.content.find('a') }}|{{ m.content.count('a') }}|{{ m.content.replace('a', 'b', 1) }}\n{% endfor %}",
    "tojson_variants": "{{ tools | tojson }}\n{{ tools | tojson(indent=2) }}\n{{ tools | tojson(indent='\t', sort_keys=true) }}\n{{ tools | tojson(separators=(',', ':')) }}\n{{ tools | tojson(ensure_ascii=true) }}\n{{ messages | tojson(indent=0) }}",
    "tojson_args": "{% for m in messages %}{% for c in m.tool_calls or [] %}{{ c.function.arguments | tojson }}\n{% endfor %}{% endfor %}",
    "print_values": "{{ messages }}\n{{ tools }}\n{{ [1.0, 1e-07, 1e16, 1e20, 0.1, -0.0, 2.5e-05] }}\n{{ 1e20 }} {{ 1e-07 }} {{ 0.1 + 0.2 }} {{ 10 / 4 }} {{ 7 // 2 }} {{ 2 ** 10 }} {{ none }} {{ true }}\n{{ {'a': [1, 'b', none, true]} }}\n{{ messages[0] | string }}",
    "loop_controls": "{% for m in messages %}{% if loop.index0 == 1 %}{% continue %}{% endif %}{% if loop.index > 3 %}{% break %}{% endif %}{{ loop.index }}/{{ loop.length }}:{{ m.role }}{{ ',' if not loop.last }}{% endfor %}",
    "namespace_and_set": "{% set ns = namespace(n=0, s='') %}{% for m in messages %}{% set ns.n = ns.n + 1 %}{% set ns.s = ns.s ~ m.role[0] %}{% endfor %}{{ ns.n }} {{ ns.s }}{% set x %}captured {{ messages|length }}{% endset %} {{ x | trim }}",
    "filters_misc": "{{ messages | map(attribute='role') | join(', ') }}|{{ messages | selectattr('role', 'equalto', 'user') | list | length }}|{{ messages[-1].content | length }}|{{ messages | first | attr('role') }}|{{ 'abc' | upper }}|{{ ' x ' | trim }}|{{ [3,1,2] | sort }}|{{ 'a,b' | replace(',', ';') }}|{{ 3.7 | round }}|{{ 3 | float }}|{{ '5' | int + 1 }}|{{ [1,2,2] | unique | list }}|{{ 'hello world' | title }}|{{ 'hello' | capitalize }}|{{ none | default('d') }}|{{ undefined_var | default('u') }}",
    "tests_misc": "{% for m in messages %}{{ m.content is string }}{{ m.content is defined }}{{ m.missing is defined }}{{ m.missing is none }}{{ m is mapping }}{{ messages is iterable }}{{ (m.content | length) is number }}{{ m.role in ['user', 'assistant'] }}\n{% endfor %}",
    "whitespace_control": "{% for m in messages %}\n  {% if m.role == 'user' %}\n    U: {{ m.content }}\n  {% else %}\n    A: {{ m.content }}\n  {% endif %}\n{% endfor %}\n{%- if add_generation_prompt %}\nA:\n{%- endif %}",
    "crlf_source": "{% for m in messages %}\r\n{{ m.role }}: {{ m.content }}\r\n{% endfor %}\r\nend\r\n",
    "raise_exception": "{% if messages[0].role != 'system' %}{{ raise_exception('First message must be system, got ' ~ messages[0].role) }}{% endif %}ok",
    "special_tokens": "{{ bos_token }}|{{ eos_token }}|{{ pad_token }}|{{ unk_token }}|{{ sep_token }}|{{ custom_var }}|{{ add_generation_prompt }}|{{ tools }}|{{ documents }}",
    "strftime": "{{ strftime_now('%Y-%m-%d %H:%M:%S|%d %b %Y|%A %B %-d|%I%p|%j|%%') }}",
    "macro_recursion": "{% macro render(v, d) %}{% if v is mapping %}{% for k, x in v.items() %}{{ '  ' * d }}{{ k }}:\n{{ render(x, d + 1) }}{% endfor %}{% elif v is sequence and v is not string %}{% for x in v %}{{ render(x, d) }}{% endfor %}{% else %}{{ '  ' * d }}{{ v }}\n{% endif %}{% endmacro %}{{ render(tools, 0) }}",
    "dict_methods": "{% for t in tools %}{% for k, v in t.function.parameters.properties.items() %}{{ k }}={{ v.get('type', '?') }};{% endfor %}{{ t.function.parameters.properties.keys() | list }}{% endfor %}",
    "slicing": "{{ messages[1:] | length }}|{{ messages[::-1][0].role }}|{{ messages[-1].content[:5] }}|{{ messages[0].content[::-1] }}",
    "undefined_print": "[{{ nothing }}][{{ messages[0].nothing }}][{{ messages[99] }}]",
}

# one expression each, rendered on two conversations: maps the remaining engine differences
PROBE_TEMPLATES = {
    "join_values": "{{ [1, 1.5, 1e-07, none, true, 'x'] | join(',') }}",
    "format_filter": "{{ '%s=%.2f|%5d|%-4s|' | format('pi', 3.14159, 42, 'ab') }}",
    "str_format_method": "{{ '{} and {}'.format(messages[0].role, 2) }}|{{ '{0}-{0}'.format('x') }}",
    "int_float_filters": "{{ 'abc' | int }}|{{ '3.7' | int }}|{{ ' 42 ' | int }}|{{ 'x' | float }}|{{ '1e3' | float }}|{{ none | int }}|{{ 4.9 | int }}|{{ '0x1A' | int(base=16) }}|{{ '12' | int(5) }}",
    "sequence_tests": "{{ 'abc' is sequence }}|{{ {} is sequence }}|{{ [] is sequence }}|{{ 'abc' is iterable }}|{{ {} is iterable }}|{{ 3 is iterable }}|{{ {} is mapping }}|{{ 'a' is string }}|{{ 1 is number }}|{{ 1.5 is float }}|{{ 1 is integer }}|{{ true is boolean }}|{{ none is none }}|{{ 3 is odd }}|{{ 4 is even }}|{{ 9 is divisibleby 3 }}|{{ 'abc' is lower }}|{{ 'ABC' is upper }}|{{ true is true }}|{{ 1 is true }}|{{ 0 is false }}",
    "loop_attrs": "{% for m in messages %}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}{{ loop.first }}{{ loop.last }}{{ loop.cycle('a', 'b') }}{{ loop.depth }}{{ loop.changed(m.role) }}{{ loop.previtem.role if loop.previtem }}{{ loop.nextitem.role if loop.nextitem }};{% endfor %}",
    "sort_unique_minmax": "{{ ['b', 'A', 'a', 'C'] | sort }}|{{ ['b', 'A', 'a', 'C'] | sort(case_sensitive=true) }}|{{ ['a', 'A', 'b'] | unique | list }}|{{ ['b', 'A', 'c'] | min }}|{{ ['b', 'A', 'c'] | max }}|{{ messages | sort(attribute='role') | map(attribute='role') | join }}|{{ [3, 1, 2] | sort(reverse=true) }}",
    "dictsort": "{{ {'b': 1, 'A': 2, 'a': 3} | dictsort }}|{{ {'b': 1, 'a': 2} | dictsort(by='value') }}|{{ {'b': 1, 'a': 2} | items | list }}",
    "string_filters": "{{ 'hello world' | center(21) }}|{{ 'a  b c' | wordcount }}|{{ 'x\ny' | indent(2) }}|{{ 'x\ny' | indent(2, true) }}|{{ 'abc' | reverse }}|{{ 'abc' | list }}|{{ 'a' * 3 }}|{{ 'abcdef' | truncate(5) }}|{{ 'Hello World' | replace('o', '0', 1) }}|{{ '<b>x</b>' | striptags }}|{{ 'ab' | first }}|{{ 'ab' | last }}",
    "undefined_ops": "{{ undefined_thing | length }}|{{ undefined_thing | default('d') }}|{{ undefined_thing is defined }}|{{ (undefined_thing or 'x') }}|{{ [] | first }}|{{ 'x' if undefined_thing }}|{% for x in undefined_thing %}{{ x }}{% endfor %}",
    "undefined_attr_error": "{{ undefined_thing.attr }}",
    "undefined_in": "{{ 'x' in undefined_thing }}",
    "tojson_undefined": "{{ undefined_thing | tojson }}",
    "tojson_positional": "{{ messages[0] | tojson(true) }}|{{ {'é': 1} | tojson(false, 2) }}",
    "tojson_sort_mixed": "{{ {'b': 1, 'a': {'d': 1, 'c': 2}} | tojson(sort_keys=true) }}",
    "numbers": "{{ 2 ** 100 }}|{{ -0.0 }}|{{ 1e300 * 1e10 }}|{{ 7 // 2 }}|{{ -7 // 2 }}|{{ -7 % 3 }}|{{ 7.5 % 2 }}|{{ 1 / 3 }}|{{ 2 / 2 }}|{{ 0.1 * 3 }}|{{ 3.0 | round }}|{{ 2.5 | round }}|{{ 3.14159 | round(2) }}|{{ 2.675 | round(2, 'floor') }}|{{ -1 | abs }}|{{ 10 | float }}|{{ [1, 2.5] | sum }}",
    "number_compare": "{{ 1 == 1.0 }}|{{ 'a' < 'b' }}|{{ none == none }}|{{ [1, 2] == [1, 2] }}|{{ {'a': 1} == {'a': 1} }}|{{ 1 in [1.0] }}|{{ 'b' in 'abc' }}|{{ 'a' in {'a': 1} }}",
    "namespace_underscore": "{% set ns = namespace(_private=1) %}{{ ns._private }}",
    "dict_global": "{{ dict(a=1, b='x') }}|{{ dict(a=1) | tojson }}|{{ range(3) | list }}|{{ range(1, 10, 3) | list }}|{{ range(3) | join('-') }}",
    "trailing_newlines": "{{ messages[0].role }}\n\n",
    "select_reject": "{{ messages | selectattr('tool_calls') | list | length }}|{{ messages | rejectattr('content') | list | length }}|{{ messages | selectattr('role', 'in', ['user', 'system']) | list | length }}|{{ [1, 2, 3, 4] | select('odd') | list }}|{{ [1, 2, 3] | reject('even') | list }}|{{ messages | map(attribute='missing', default='M') | list | length }}|{{ ['a', 'b'] | map('upper') | list }}",
    "batch_slice_groupby": "{{ [1, 2, 3, 4, 5] | batch(2) | list }}|{{ [1, 2, 3, 4, 5] | slice(2) | list }}|{% for g in messages | groupby('role') %}{{ g.grouper }}:{{ g.list | length }},{% endfor %}",
    "escape_safe": "{{ '<b>' | e }}|{{ '<b>' | safe }}|{{ '<&>' | escape | length }}",
    "printed_dicts": "{{ messages[0] }}|{{ {'k': \"it's\", 'q': 'say \"hi\"', 'n': '\\n\\x01'} }}|{{ ['\u00a0', '\u200b', 'é'] }}|{{ {'t': (1, 2)} }}|{{ (1, 2) }}",
    "string_methods_more": "{{ 'a,b,c'.rsplit(',', 1) }}|{{ 'a b'.split(maxsplit=0) }}|{{ 'Hello'.startswith('He', 1) }}|{{ 'abc'.find('c', 1) }}|{{ 'abc'.index('b') }}|{{ ' x '.isspace() }}|{{ 'abc'.capitalize() }}|{{ 'aBc'.swapcase() }}|{{ 'ab'.zfill(5) }}|{{ 'x'.center(5, '*') }}|{{ 'a-b'.partition('-') }}|{{ 'abc'.removeprefix('a') }}|{{ 'abc'.isalnum() }}|{{ '12'.isdigit() }}",
    "string_title_filter": "{{ \"it's a 3rd-party tool_call\" | title }}|{{ \"it's a 3rd-party tool_call\".title() }}|{{ 'hELLO wORLD' | capitalize }}",
    "macro_caller": "{% macro wrap(tag) %}<{{ tag }}>{{ caller() }}</{{ tag }}>{% endmacro %}{% call wrap('b') %}{{ messages | length }}{% endcall %}",
    "filter_block": "{% filter upper %}{{ messages[0].role }} text{% endfilter %}",
    "with_block": "{% with x = messages | length %}{{ x }}{% endwith %}",
    "set_block_trim": "{% set s %}\n  {{ messages[0].role }}  \n{% endset %}[{{ s }}][{{ s | trim }}]",
    "raise_non_string": "{{ raise_exception(42) }}",
    "deep_recursion_macro": "{% macro r(n) %}{% if n > 0 %}{{ r(n - 1) }}{% else %}bottom{% endif %}{% endmacro %}{{ r(40) }}",
    "bool_filter_and_none_print": "{{ none }}|{{ [none] }}|{{ true }}|{{ false | string }}|{{ none | string }}|{{ '' | default('e', true) }}",
    "items_print": "{% for k, v in {'a': 1, 'b': [2]}.items() %}{{ k }}={{ v }};{% endfor %}{{ {'a': 1}.keys() | list }}{{ {'a': 1}.values() | list }}",
    "concat_index": "{% set x = [1] + [2] %}{{ x[0] }}|{{ ([1] + [2])[1] }}|{{ x is sequence }}|{{ x }}",
    "ns_accumulate": "{% set ns = namespace(m=[], s='') %}{% for m in messages %}{% set ns.m = ns.m + [m.role] %}{% set ns.s = ns.s ~ m.role[0] %}{% endfor %}{{ ns.m }}|{{ ns.m[-1] }}|{{ ns.s }}|{{ ns.m | length }}",
    "set_in_loop_scope": "{% set acc = [] %}{% for m in messages %}{% set acc = acc + [m.role] %}{% endfor %}{{ acc }}",
    "items_unpack": "{% for t in tools %}{% for name, spec in t.function.parameters.properties | items %}{{ name }}:{{ spec.type }},{% endfor %}{% for name, spec in t.function.parameters.properties.items() %}{{ name }};{% endfor %}{% endfor %}",
    "is_mapping_string": "{% for m in messages %}{{ m.content is mapping }}{{ m.content is string }}{{ m.tool_calls is iterable }}{{ m.tool_calls is sequence }}{% endfor %}",
    "strip_chain": "{% for m in messages %}{{ (m.content or '').strip().split('\\n')[0].rstrip('.').title() }}|{% endfor %}",
    "whitespace_lstrip": "  {% if true %}\n    indented\n  {% endif %}\n  {%+ if true %}keep{% endif %}\n{{ 'x' }}\n",
}

# operations on None: jinja2 raises TypeError for most of them
for _name, _expr in {
    "for": "{% for x in none %}{{ x }}{% endfor %}",
    "for_tools": "{% for t in tools %}{{ t }}{% endfor %}",
    "length": "{{ none | length }}",
    "in": "{{ 'a' in none }}",
    "list": "{{ none | list }}",
    "first": "{{ none | first }}",
    "last": "{{ none | last }}",
    "join": "{{ none | join(',') }}",
    "selectattr": "{{ none | selectattr('x') | list }}",
    "map": "{{ none | map('upper') | list }}",
    "sort": "{{ none | sort }}",
    "unique": "{{ none | unique | list }}",
    "reverse": "{{ none | reverse }}",
    "sum": "{{ none | sum }}",
    "min": "{{ none | min }}",
    "items": "{{ none | items | list }}",
    "dictsort": "{{ none | dictsort }}",
    "batch": "{{ none | batch(2) | list }}",
    "trim": "{{ none | trim }}",
    "upper": "{{ none | upper }}",
    "replace": "{{ none | replace('N', 'n') }}",
    "tojson": "{{ none | tojson }}",
    "string_concat": "{{ 'a' + none }}",
    "tilde": "{{ 'a' ~ none }}",
    "getattr": "{{ none.x }}",
    "getitem": "{{ none[0] }}",
    "is_iterable": "{{ none is iterable }}|{{ none is sequence }}|{{ none is mapping }}|{{ none is string }}",
    "loop_filter": "{% for m in messages if m.role != 'system' %}{{ m.role }}{% endfor %}",
    "loop_else": "{% for x in [] %}x{% else %}empty{% endfor %}",
    "loop_recursive": "{% for m in [{'c': [{'c': []}]}] recursive %}[{{ loop.depth }}{{ loop(m.c) }}]{% endfor %}",
}.items():
    PROBE_TEMPLATES["none_" + _name] = _expr

# constructs minijinja evaluates differently from jinja2 (engine limits, not fixable from outside the engine);
# cases get ids known/...: the differential test reports them but does not fail on them
KNOWN_DIFFERENCES = {
    "concat_values": "{{ 'a' ~ 1e-07 ~ none ~ true ~ 2.5 ~ [1, 'b'] }}",
    "percent_operator": "{{ 'Hello %s' % messages[0].role }}",
    "loop_over_string": "{% for c in 'abc' %}{{ c }}{{ loop.index }}/{{ loop.length }}{% endfor %}",
}

GENERATION_TEMPLATES = {
    "gen_chatml": (
        "{%- for message in messages -%}\n"
        "{%- if message.role == 'assistant' -%}\n"
        "<|im_start|>assistant\n"
        "{% generation %}{{ message.content }}<|im_end|>{% endgeneration %}\n\n"
        "{% else -%}\n"
        "<|im_start|>{{ message.role }}\n{{ message.content }}<|im_end|>\n"
        "{% endif -%}\n"
        "{%- endfor -%}\n"
        "{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif -%}"
    ),
    "gen_trimmed": (
        "{{ bos_token }}{% for m in messages %}{% if m.role == 'assistant' %}<A>{%- generation -%}\n  {{ m.content | trim }}  \n"
        "{%- endgeneration -%}</A>{% else %}<{{ m.role }}>{{ m.content }}</{{ m.role }}>{% endif %}{% endfor %}"
    ),
    "gen_tools": (
        "{% for m in messages %}{% if m.role == 'assistant' %}ASSISTANT: {% generation %}{{ m.content or '' }}"
        "{% for c in m.tool_calls or [] %}<call>{{ c.function | tojson }}</call>{% endfor %}</s>{% endgeneration %}\n"
        "{% else %}{{ m.role | upper }}: {{ m.content }}\n{% endif %}{% endfor %}"
    ),
}


# ---------------------------------------------------------------------------------------------------------------------
# tau-bench derived conversations


def parse_args_dict(tc):
    tc = copy.deepcopy(tc)
    args = tc["function"]["arguments"]
    if isinstance(args, str):
        try:
            tc["function"]["arguments"] = json.loads(args)
        except ValueError:
            pass
    return tc


def variant_messages(messages, variant, rng):
    msgs = copy.deepcopy(messages)
    if variant == "no_system":
        msgs = [m for m in msgs if m["role"] != "system"]
    elif variant == "dict_args":
        for m in msgs:
            if m.get("tool_calls"):
                m["tool_calls"] = [parse_args_dict(tc) for tc in m["tool_calls"]]
    elif variant == "mixed_args":
        k = 0
        for m in msgs:
            if m.get("tool_calls"):
                if k % 2:
                    m["tool_calls"] = [parse_args_dict(tc) for tc in m["tool_calls"]]
                k += 1
    elif variant == "empty_content":
        for m in msgs:
            if m.get("tool_calls") and m.get("content") is None:
                m["content"] = ""
    elif variant in ("reasoning_content", "thinking", "reasoning"):
        for i, m in enumerate(msgs):
            if m["role"] == "assistant" and rng.random() < 0.6:
                m[variant] = f"Step {i}: consider the policy.\nThen answer."
    elif variant == "think_tags":
        for i, m in enumerate(msgs):
            if m["role"] == "assistant" and isinstance(m.get("content"), str) and rng.random() < 0.6:
                m["content"] = f"<think>\nthinking {i}\n</think>\n\n" + m["content"]
    elif variant == "chat_only":
        out = []
        for m in msgs:
            if m["role"] not in ("user", "assistant") or not isinstance(m.get("content"), str):
                continue
            if out and out[-1]["role"] == m["role"]:
                out[-1]["content"] += "\n\n" + m["content"]
            else:
                out.append({"role": m["role"], "content": m["content"]})
        msgs = out
    elif variant == "parallel":
        out = []
        i = 0
        while i < len(msgs):
            m = msgs[i]
            if (
                m["role"] == "assistant"
                and m.get("tool_calls")
                and i + 3 < len(msgs)
                and msgs[i + 1]["role"] == "tool"
                and msgs[i + 2]["role"] == "assistant"
                and msgs[i + 2].get("tool_calls")
                and msgs[i + 3]["role"] == "tool"
            ):
                merged = dict(m)
                merged["tool_calls"] = m["tool_calls"] + msgs[i + 2]["tool_calls"]
                out += [merged, msgs[i + 1], msgs[i + 3]]
                i += 4
            else:
                out.append(m)
                i += 1
        msgs = out
    return msgs


def cut(msgs, rng, end_role):
    idx = [i for i, m in enumerate(msgs) if m["role"] == end_role]
    if not idx:
        return msgs
    return msgs[: rng.choice(idx) + 1]


TAU_VARIANTS = [
    "as_is",
    "no_system",
    "dict_args",
    "mixed_args",
    "empty_content",
    "reasoning_content",
    "thinking",
    "reasoning",
    "think_tags",
    "chat_only",
    "parallel",
]


def tau_cases(data_dir, templates, variants_per, max_convs, rng, tools):
    path = os.path.join(data_dir, "tau-airline-conversations.jsonl")
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    if max_convs:
        rows = rows[:max_convs]
    cases = []
    for row in rows:
        for tpl in templates:
            for k in range(variants_per):
                variant = rng.choice(TAU_VARIANTS)
                msgs = variant_messages(row["messages"], variant, rng)
                if variant not in ("as_is", "empty_content", "chat_only") and rng.random() < 0.6:
                    # most templates need a string content on tool-call turns (transformers 5.x drops null keys)
                    msgs = variant_messages(msgs, "empty_content", rng)
                end = rng.choice(["full", "user", "tool", "assistant"])
                if end != "full":
                    msgs = cut(msgs, rng, end)
                agp = end in ("user", "tool") or rng.random() < 0.3
                kwargs = {}
                think = rng.choice(["absent", True, False])
                if think != "absent":
                    kwargs["enable_thinking"] = think
                case_tools = None if (variant == "chat_only" or rng.random() < 0.15) else tools
                cases.append(
                    {
                        "id": f"tau/{tpl}/t{row['task_id']}r{row['trial']}/{k}/{variant}/{end}",
                        "template_dir": tpl,
                        "messages": msgs,
                        "tools": case_tools,
                        "add_generation_prompt": agp,
                        "kwargs": kwargs,
                    }
                )
    return cases


def self_made_cases(templates, rng):
    cases = []
    convs = self_made_conversations()
    for tpl in templates:
        for label, msgs, tools in convs:
            for agp in (False, True):
                for think in ("absent", True, False):
                    if think != "absent" and rng.random() < 0.5:
                        continue
                    kwargs = {} if think == "absent" else {"enable_thinking": think}
                    for with_tools in ([False, True] if tools else [False]):
                        cases.append(
                            {
                                "id": f"self/{tpl}/{label}/agp={agp}/think={think}/tools={with_tools}",
                                "template_dir": tpl,
                                "messages": msgs,
                                "tools": tools if with_tools else None,
                                "add_generation_prompt": agp,
                                "kwargs": kwargs,
                            }
                        )
            # tools passed to a conversation without tool calls (templates that ignore / use them)
            if not tools:
                cases.append(
                    {
                        "id": f"self/{tpl}/{label}/unused_tools",
                        "template_dir": tpl,
                        "messages": msgs,
                        "tools": WEATHER_TOOLS,
                        "add_generation_prompt": True,
                        "kwargs": {},
                    }
                )
        # continue_final_message
        for j, text in enumerate(["Sure, here is", "Trailing space ", "Trailing newline\n", "  padded  "]):
            cases.append(
                {
                    "id": f"self/{tpl}/continue/{j}",
                    "template_dir": tpl,
                    "messages": [{"role": "user", "content": "Write"}, {"role": "assistant", "content": text}],
                    "tools": None,
                    "add_generation_prompt": False,
                    "continue_final_message": True,
                    "kwargs": {},
                }
            )
        cases.append(
            {
                "id": f"self/{tpl}/continue/reasoning",
                "template_dir": tpl,
                "messages": [
                    {"role": "user", "content": "Q"},
                    {"role": "assistant", "content": "A", "reasoning_content": "I think"},
                ],
                "tools": None,
                "continue_final_message": "reasoning_content",
                "kwargs": {},
            }
        )
        cases.append(
            {
                "id": f"self/{tpl}/continue/parts",
                "template_dir": tpl,
                "messages": [
                    {"role": "user", "content": "Q"},
                    {"role": "assistant", "content": [{"type": "text", "text": "Partial answer"}]},
                ],
                "tools": None,
                "continue_final_message": True,
                "kwargs": {},
            }
        )
        # special tokens overridden by kwargs, documents passed
        cases.append(
            {
                "id": f"self/{tpl}/kwargs_override",
                "template_dir": tpl,
                "messages": [{"role": "user", "content": "Hi"}],
                "tools": None,
                "documents": [{"title": "Doc", "text": "Body"}],
                "add_generation_prompt": True,
                "kwargs": {"bos_token": "<BOS!>", "eos_token": "<EOS!>", "custom_var": 1},
            }
        )
        for label, msgs, tools, extra in error_cases():
            case = {
                "id": f"self/{tpl}/{label}",
                "template_dir": tpl,
                "messages": msgs,
                "tools": tools,
                "add_generation_prompt": False,
                "kwargs": {},
            }
            case.update(extra)
            cases.append(case)
    return cases


def micro_cases(rng):
    cases = []
    convs = [c for c in self_made_conversations() if c[0] in ("system_multi_turn", "tools_mixed", "parallel_calls")]
    convs += [c for c in self_made_conversations() if c[0].startswith(("unicode_", "whitespace_", "literal_"))]
    for name, source in MICRO_TEMPLATES.items():
        for label, msgs, tools in convs:
            cases.append(
                {
                    "id": f"micro/{name}/{label}",
                    "template_dir": "qwen3",
                    "chat_template": source,
                    "messages": msgs,
                    "tools": tools or WEATHER_TOOLS,
                    "add_generation_prompt": rng.random() < 0.5,
                    "kwargs": {"custom_var": "cv"},
                }
            )
    probe_convs = [c for c in self_made_conversations() if c[0] in ("system_multi_turn", "tools_mixed")]
    for prefix, templates in (("probe", PROBE_TEMPLATES), ("known", KNOWN_DIFFERENCES)):
        for name, source in templates.items():
            for label, msgs, tools in probe_convs:
                cases.append(
                    {
                        "id": f"{prefix}/{name}/{label}",
                        "template_dir": "qwen3",
                        "chat_template": source,
                        "messages": msgs,
                        "tools": tools or WEATHER_TOOLS,
                        "add_generation_prompt": False,
                        "kwargs": {},
                    }
                )
    for name, source in GENERATION_TEMPLATES.items():
        for label, msgs, tools in self_made_conversations():
            if any(not isinstance(m.get("content"), (str, type(None))) for m in msgs):
                continue
            for tpl_dir in ("qwen3", "gemma3"):
                cases.append(
                    {
                        "id": f"gen/{name}/{tpl_dir}/{label}",
                        "template_dir": tpl_dir,
                        "chat_template": source,
                        "messages": msgs,
                        "tools": tools,
                        "add_generation_prompt": False,
                        "kwargs": {},
                        "return_assistant_tokens_mask": True,
                    }
                )
    # malformed templates must raise in both engines
    for k, source in enumerate(["{% for m in messages %}", "{{ messages[0].content ", "{% if %}x{% endif %}", "{% generation %}x", "{{ 1 + }}"]):
        cases.append(
            {
                "id": f"micro/syntax_error/{k}",
                "template_dir": "qwen3",
                "chat_template": source,
                "messages": [{"role": "user", "content": "x"}],
                "tools": None,
                "kwargs": {},
            }
        )
    return cases


def default_data_dir():
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (
        os.path.join(here, "..", "..", "..", "shared", "data"),
        os.path.join(here, "..", "..", "shared", "data"),
    ):
        if os.path.exists(os.path.join(candidate, "tau-airline-conversations.jsonl")):
            return os.path.normpath(candidate)
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--data", help="folder with tau-airline-conversations.jsonl and tau-airline-tools.json")
    ap.add_argument("--no-data", action="store_true", help="only self-made cases")
    ap.add_argument("--variants", type=int, default=2, help="variants per (tau conversation, template)")
    ap.add_argument("--max-conversations", type=int, default=0, help="limit tau conversations (0 = all)")
    ap.add_argument("--templates", default=",".join(TEMPLATES))
    ap.add_argument("--seed", type=int, default=1234)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    templates = [t for t in args.templates.split(",") if t]
    cases = self_made_cases(templates, rng) + micro_cases(rng)
    data_dir = None if args.no_data else (args.data or default_data_dir())
    if data_dir and os.path.exists(os.path.join(data_dir, "tau-airline-conversations.jsonl")):
        with open(os.path.join(data_dir, "tau-airline-tools.json"), encoding="utf-8") as f:
            tools = json.load(f)
        cases += tau_cases(data_dir, templates, args.variants, args.max_conversations, rng, tools)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(cases, f, ensure_ascii=False)
    print(f"wrote {len(cases)} cases to {args.out} (tau data: {data_dir or 'not found'})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
