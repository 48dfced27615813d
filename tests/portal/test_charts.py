from portal.charts import Segment, bar_chart, donut, stacked_bar

SEGMENTS = [Segment("Synced", 12.5), Segment("Needs update", 3), Segment("Empty", 0)]


def test_every_chart_renders_its_values_and_a_description():
    for chart in (bar_chart(SEGMENTS, title="Health"), stacked_bar(SEGMENTS, title="Health"),
                  donut(SEGMENTS, title="Health", center_text="15.5")):
        assert chart.startswith("<svg")
        assert 'aria-label="Health: Synced 12.5, Needs update 3, Empty 0"' in chart
        assert "Synced" in chart


def test_labels_are_escaped():
    chart = bar_chart([Segment("<script>", 1)], title="x")
    assert "<script>" not in chart and "&lt;script&gt;" in chart


def test_bars_are_proportional():
    chart = bar_chart([Segment("a", 10), Segment("b", 5)], title="t", width=460, label_width=100)
    assert 'width="300.0"' in chart and 'width="150.0"' in chart


def test_an_all_zero_donut_draws_an_empty_ring():
    assert "#dde1e7" in donut([Segment("a", 0)], title="t")
